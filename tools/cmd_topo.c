/*
 * tools/cmd_topo.c - `p2psim topo [FILE]`: the connection matrix in the
 * layout of `nvidia-smi topo -m`, then the P2P matrix as
 * cudaDeviceCanAccessPeer would answer; --dot writes Graphviz, --png
 * renders it with dot; --nccl-xml writes NCCL's topology file
 * (tools/nccl_xml.c).
 */
#include <config.h>

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "machine/p2psim.h"
#include "tools/cli.h"
#include "tools/nccl_xml.h"

static void topo_usage(FILE *f)
{
    fprintf(f,
            "usage: p2psim topo [FILE] [--dot OUT.dot] [--png OUT.png] "
            "[--nccl-xml OUT.xml]\n"
            "                   [--vm NAME] [--set PATH=VALUE]...\n\n"
            "Print how every pair of GPUs is connected, in the layout of\n"
            "nvidia-smi topo -m, then which pairs can use P2P (as\n"
            "cudaDeviceCanAccessPeer answers). FILE is a machine file; "
            "without it,\nthe built-in default machine.\n\n"
            "  --dot OUT   write the machine as a Graphviz graph\n"
            "  --png OUT   render that graph with dot (graphviz) to a PNG\n"
            "  --nccl-xml OUT  write the machine as NCCL's topology file\n"
            "              (NCCL_TOPO_FILE; \"-\": standard output, and no "
            "matrices):\n"
            "              CPUs per NUMA node, PCIe switches as nested <pci>,\n"
            "              each GPU's NVLinks to GPUs or NVSwitches "
            "(tclass\n"
            "              0x068000), the bus ids CUDA and NVML report. "
            "p2psim run\n"
            "              hands such a file to programs unless "
            "NCCL_TOPO_FILE is set\n"
            "  --vm NAME   the machine as VM NAME of its vms: sees it: its "
            "GPUs only,\n"
            "              numbered from 0 (as p2psim run --vm NAME shows "
            "them)\n"
            "  --set PATH=VALUE  override a value of the machine file "
            "(repeatable;\n"
            "              topologies/SCHEMA.md, \"Overrides\")\n");
}

static void print_cell(const struct p2psim_path *pa)
{
    if (pa->cls == P2PSIM_PATH_NV) {
        printf("NV%u", pa->nv_links);
    } else if (pa->cls == P2PSIM_PATH_X) {
        printf(" X ");
    } else {
        printf("%s", p2psim_path_class_name(pa->cls));
    }
}

/* GPU g's NUMA node (the pci tree's, numbered over all sockets). */
static unsigned gpu_numa(const struct p2psim *p, unsigned g)
{
    static struct p2psim_pci_node t[512];
    unsigned n = p2psim_pci_tree(p, t, sizeof(t) / sizeof(t[0]));
    for (unsigned i = 0; i < n && i < sizeof(t) / sizeof(t[0]); i++) {
        if (t[i].gpu == (int)g) {
            return t[i].numa;
        }
    }
    return p2psim_gpu_socket(p, g);
}

static void print_legend(void)
{
    printf("\nLegend:\n\n"
           "  X    = Self\n"
           "  SYS  = Through PCIe and the link between sockets (NUMA nodes), "
           "e.g. QPI/UPI/xGMI\n"
           "  NODE = Through PCIe and between PCIe host bridges of one NUMA "
           "node\n"
           "  PHB  = Through PCIe and one PCIe host bridge (the CPU's root "
           "complex)\n"
           "  PXB  = Through several PCIe bridges, without a host bridge\n"
           "  PIX  = Through one PCIe bridge at most\n"
           "  NV#  = Through a bonded set of # NVLinks\n");
}

static int write_dot(const struct p2psim *p, const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        return CLI_FAIL;
    }
    int rc = p2psim_write_dot(p, f);
    fclose(f);
    return rc < 0 ? CLI_FAIL : CLI_OK;
}

/* The machine's VMs (vms:): each one's GPUs, or the one it is seen from. */
static void print_vms(const struct p2psim *p)
{
    int guest = p2psim_guest_vm(p);
    if (guest >= 0) {
        printf("Seen from VM %s: its GPUs only\n",
               p2psim_vm_name(p, (unsigned)guest));
        return;
    }
    for (unsigned k = 0; k < p2psim_vm_count(p); k++) {
        printf("VM %s:", p2psim_vm_name(p, k));
        for (unsigned i = 0; i < p2psim_gpu_count(p); i++) {
            if (p2psim_gpu_vm(p, i) == (int)k) {
                printf(" GPU%u", i);
            }
        }
        printf("\n");
    }
}

int cmd_topo(int argc, char **argv)
{
    static const struct option opts[] = {
        { "dot", required_argument, NULL, 'd' },
        { "png", required_argument, NULL, 'p' },
        { "nccl-xml", required_argument, NULL, 'x' },
        { "set", required_argument, NULL, 's' },
        { "vm", required_argument, NULL, 'V' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    const char *dot = NULL, *png = NULL, *xml = NULL, *vm = NULL;
    char *ov = NULL;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'd': dot = optarg; break;
        case 'p': png = optarg; break;
        case 'x': xml = optarg; break;
        case 'V': vm = optarg; break;
        case 's':
            if (cli_add_override(&ov, optarg) < 0) {
                free(ov);
                return CLI_FAIL;
            }
            break;
        case 'h': free(ov); topo_usage(stdout); return CLI_OK;
        default: free(ov); topo_usage(stderr); return CLI_BAD_INPUT;
        }
    }
    if (argc - optind > 1) {
        free(ov);
        topo_usage(stderr);
        return CLI_BAD_INPUT;
    }
    struct p2psim_options popt = { .overrides = ov, .vm = vm };
    struct p2psim *p = cli_open_opt(optind < argc ? argv[optind] : NULL,
                                    &popt);
    free(ov);
    if (!p) {
        return CLI_BAD_INPUT;
    }
    if (xml && strcmp(xml, "-") == 0) {
        int rc = nccl_xml_write(p, stdout) < 0 ? CLI_FAIL : CLI_OK;
        p2psim_close(p);
        return rc;
    }
    unsigned n = p2psim_gpu_count(p);
    for (unsigned j = 0; j < n; j++) {
        printf("\tGPU%u", j);
    }
    printf("\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\n");
    for (unsigned i = 0; i < n; i++) {
        printf("GPU%u\t", i);
        for (unsigned j = 0; j < n; j++) {
            struct p2psim_path pa;
            p2psim_path(p, i, j, &pa);
            print_cell(&pa);
            printf("\t");
        }
        printf("N/A\t%u\t\tN/A\n", gpu_numa(p, i));
    }
    print_legend();
    printf("\nP2P (cudaDeviceCanAccessPeer):\n   D\\D");
    for (unsigned j = 0; j < n; j++) {
        printf("%5u", j);
    }
    printf("\n");
    for (unsigned i = 0; i < n; i++) {
        printf("%6u", i);
        for (unsigned j = 0; j < n; j++) {
            struct p2psim_verdict v;
            p2psim_p2p(p, i, j, &v);
            printf("%5d", v.allowed ? 1 : 0);
        }
        printf("\n");
    }
    printf("\nGPUs:");
    for (unsigned i = 0; i < n; i++) {
        printf(" GPU%u=%s (%s)", i, p2psim_gpu_id(p, i), p2psim_gpu_model(p, i));
    }
    printf("\n");
    unsigned nd = p2psim_drive_count(p);
    if (nd) {
        printf("\nDrives (class to each GPU, then GPUDirect Storage into "
               "each):\n");
        for (unsigned j = 0; j < n; j++) {
            printf("\tGPU%u", j);
        }
        printf("\tGDS\n");
    }
    for (unsigned i = 0; i < nd; i++) {
        printf("%s\t", p2psim_drive_id(p, i));
        struct p2psim_verdict v;
        char gds[80] = "";
        for (unsigned j = 0; j < n; j++) {
            p2psim_drive_gds(p, i, j, &v);
            print_cell(&v.path);
            printf("\t");
            size_t at = strlen(gds);
            snprintf(gds + at, sizeof(gds) - at, "%s%d", j ? " " : "",
                     v.allowed ? 1 : 0);
        }
        printf("%s\n", gds);
    }
    print_vms(p);
    int rc = CLI_OK;
    if (dot) {
        rc = write_dot(p, dot);
    }
    if (rc == CLI_OK && xml) {
        FILE *f = fopen(xml, "w");
        if (!f || nccl_xml_write(p, f) < 0) {
            perror(xml);
            rc = CLI_FAIL;
        }
        if (f && fclose(f) != 0 && rc == CLI_OK) {
            perror(xml);
            rc = CLI_FAIL;
        }
    }
    if (rc == CLI_OK && png) {
        char tmp[] = "/tmp/p2psim-topo-XXXXXX";
        int fd = mkstemp(tmp);
        if (fd < 0) {
            rc = CLI_FAIL;
        } else {
            close(fd);
            rc = write_dot(p, tmp);
            if (rc == CLI_OK) {
                char cmd[4200];
                snprintf(cmd, sizeof(cmd), "dot -Tpng -o '%s' '%s'", png, tmp);
                if (system("command -v dot >/dev/null 2>&1") != 0) {
                    fprintf(stderr, "p2psim topo: --png needs Graphviz's dot "
                                    "(apt-get install graphviz); --dot "
                                    "writes the graph without it\n");
                    rc = CLI_FAIL;
                } else if (system(cmd) != 0) {
                    fprintf(stderr, "p2psim topo: dot failed\n");
                    rc = CLI_FAIL;
                }
            }
            unlink(tmp);
        }
    }
    p2psim_close(p);
    return rc;
}
