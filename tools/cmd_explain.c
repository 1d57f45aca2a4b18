/*
 * tools/cmd_explain.c - `p2psim explain [FILE] GPU_A GPU_B`: the path hop
 * by hop, its class and transport, and every rule that decides P2P and its
 * speed, each with the change that would lift it; with a drive as GPU_A,
 * the same for GPUDirect Storage from it.
 */
#include <config.h>

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "machine/p2psim.h"
#include "tools/cli.h"

static void explain_usage(FILE *f)
{
    fprintf(f,
            "usage: p2psim explain [FILE] GPU_A GPU_B [--set PATH=VALUE]...\n\n"
            "Explain P2P from GPU_A to GPU_B: the path hop by hop, its class\n"
            "(as nvidia-smi topo -m), the transport, and every rule that\n"
            "blocks or slows it, with the change that would lift each.\n"
            "GPUs are named as in the machine file (gpu0) or by number (0).\n"
            "With a drive as GPU_A (nvme0), explain GPUDirect Storage from\n"
            "it into GPU_B: the same P2P rules decide it.\n"
            "FILE is a machine file; without it, the built-in default.\n\n"
            "  --set PATH=VALUE  override a value of the machine file, e.g.\n"
            "                    sockets.cpu0.root-complex.iommu=passthrough\n"
            "                    (repeatable; topologies/SCHEMA.md, \"Overrides\")\n");
}

static const char *const rule_names[P2PSIM_RULE_N] = {
    [P2PSIM_RULE_SAME_DEVICE] = "same device",
    [P2PSIM_RULE_PRODUCT] = "product",
    [P2PSIM_RULE_FABRIC_MANAGER] = "fabric manager",
    [P2PSIM_RULE_NVLINK] = "NVLink",
    [P2PSIM_RULE_SOCKET] = "sockets",
    [P2PSIM_RULE_ROOT_COMPLEX] = "root complex",
    [P2PSIM_RULE_ACS] = "ACS",
    [P2PSIM_RULE_IOMMU] = "IOMMU",
    [P2PSIM_RULE_BAR1] = "BAR1",
    [P2PSIM_RULE_PATH] = "path",
    [P2PSIM_RULE_VM_CLIQUE] = "virtual machine",
    [P2PSIM_RULE_NVLINK_POWER] = "NVLink power",
    [P2PSIM_RULE_ATOMICS] = "atomics",
    [P2PSIM_RULE_VM_ISOLATION] = "VM isolation",
};

int cmd_explain(int argc, char **argv)
{
    static const struct option opts[] = {
        { "set", required_argument, NULL, 's' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    char *ov = NULL;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        if (c == 's' && cli_add_override(&ov, optarg) == 0) {
            continue;
        }
        free(ov);
        if (c == 'h') {
            explain_usage(stdout);
            return CLI_OK;
        }
        explain_usage(stderr);
        return c == 's' ? CLI_FAIL : CLI_BAD_INPUT;
    }
    int left = argc - optind;
    if (left != 2 && left != 3) {
        free(ov);
        explain_usage(stderr);
        return CLI_BAD_INPUT;
    }
    struct p2psim_options popt = { .overrides = ov };
    struct p2psim *p = cli_open_opt(left == 3 ? argv[optind] : NULL, &popt);
    free(ov);
    if (!p) {
        return CLI_BAD_INPUT;
    }
    /* a drive as the first: GPUDirect Storage from it into the GPU */
    int drive = p2psim_drive_find(p, argv[argc - 2]);
    int a = drive >= 0 ? 0 : cli_gpu(p, argv[argc - 2]);
    int b = a < 0 ? -1 : cli_gpu(p, argv[argc - 1]);
    if (a < 0 || b < 0) {
        p2psim_close(p);
        return CLI_BAD_INPUT;
    }
    struct p2psim_verdict v;
    if (drive >= 0) {
        p2psim_drive_gds(p, (unsigned)drive, (unsigned)b, &v);
        printf("%s (NVMe drive) -> %s (%s) on %s: GPUDirect Storage\n",
               p2psim_drive_id(p, (unsigned)drive),
               p2psim_gpu_id(p, (unsigned)b), p2psim_gpu_model(p, (unsigned)b),
               p2psim_machine_name(p));
    } else {
        p2psim_p2p(p, (unsigned)a, (unsigned)b, &v);
        printf("%s (%s) -> %s (%s) on %s\n", p2psim_gpu_id(p, (unsigned)a),
               p2psim_gpu_model(p, (unsigned)a), p2psim_gpu_id(p, (unsigned)b),
               p2psim_gpu_model(p, (unsigned)b), p2psim_machine_name(p));
    }
    if (v.path.n_hops) {
        printf("\nPCIe path:\n");
        for (unsigned i = 0; i < v.path.n_hops; i++) {
            const struct p2psim_hop *h = &v.path.hop[i];
            printf("  %2u  %-12s", i, h->name);
            if (h->in && h->out) {
                printf(" in %s, out %s", h->in, h->out);
            } else if (h->out) {
                printf(" out %s", h->out);
            } else if (h->in) {
                printf(" in %s", h->in);
            }
            printf("%s\n", h->redirected ? "   <- ACS redirects up" : "");
        }
    }
    if (v.path.cls == P2PSIM_PATH_NV) {
        printf("\nclass: NV%u\n", v.path.nv_links);
    } else {
        printf("\nclass: %s\n", p2psim_path_class_name(v.path.cls));
    }
    unsigned gen, width;
    p2psim_gpu_link(p, (unsigned)a, &gen, &width);
    printf("transport: %s",
           v.transport == P2PSIM_TRANSPORT_NVLINK ? "NVLink"
           : v.transport == P2PSIM_TRANSPORT_PCIE ? "PCIe"
                                                  : "none");
    if (v.transport == P2PSIM_TRANSPORT_NVLINK) {
        printf(" (NV%u: copies and peer accesses travel over NVLink, "
               "peer memory through its NVLink window, no BAR1)",
               v.path.nv_links);
    }
    if (v.transport == P2PSIM_TRANSPORT_PCIE && gen && drive < 0) {
        printf(" (%s's link: Gen%u x%u)", p2psim_gpu_id(p, (unsigned)a), gen,
               width);
    }
    if (drive >= 0) {
        printf("\nGDS: %s\n", v.allowed ? "available: the drive writes into "
                                          "the GPU's memory through its BAR1"
                                        : "not available: reads into the GPU "
                                          "use a bounce buffer in host "
                                          "memory");
    } else {
        printf("\nP2P: %s\n", !v.allowed        ? "not available: copies are "
                                                  "staged through host memory"
                              : v.reads_allowed ? "available (reads and writes)"
                                                : "available for writes only");
    }
    printf("\nrules:\n");
    if (v.n_rules == 0) {
        printf("  none: a direct path with nothing in the way\n");
    }
    for (unsigned i = 0; i < v.n_rules; i++) {
        const struct p2psim_rule *r = &v.rule[i];
        printf("  [%s] %s: %s\n", r->blocks ? "blocks" : r->slows ? "slows" : "ok",
               rule_names[r->id], r->says);
        if (r->fix[0]) {
            printf("      to lift it: %s\n", r->fix);
        }
    }
    p2psim_close(p);
    return CLI_OK;
}
