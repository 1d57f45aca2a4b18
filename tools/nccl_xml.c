/*
 * tools/nccl_xml.c - the machine as NCCL's topology file (NCCL_TOPO_FILE,
 * the XML NCCL reads in src/graph/xml.cc and builds its graph from in
 * src/graph/topo.cc): one <cpu> per NUMA node, the PCIe switches below it
 * as nested <pci> bridges (one per switch, named by its upstream port, as
 * NCCL folds a switch's two levels from sysfs), each GPU a <pci> of class
 * 0x03 holding a <gpu> with its <nvlink> groups: to a GPU (tclass the
 * GPU's class) or to an NVSwitch (tclass 0x068000, at the bus id NVML
 * reports for it). Bus ids are the runtime's (p2psim_gpu_pci_address).
 *
 * Left for NCCL to fill: each <gpu>'s rank and gdr (which rank drives a
 * GPU is the program's business; GPUDirect RDMA concerns NICs, which no
 * machine has), and the switches' vendor and device (not in machine
 * files).
 */
#define _GNU_SOURCE /* sched_getaffinity */
#include <config.h>

#include "tools/nccl_xml.h"

#include <sched.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "machine/p2psim.h"

#define XML_MAX_NODES 1024
#define XML_MAX_VALUE 255       /* NCCL's MAX_STR_LEN */

/* ---- the CPU ---------------------------------------------------------------- */

/*
 * What NCCL reads of a CPU (arch, vendor, family and model: its
 * bandwidth model between sockets and to host memory), from the machine
 * file's `cpu:` words. Intel models and AMD families from the vendors'
 * CPUID tables. [estimate] A CPU the file does not name is taken as a
 * Sapphire Rapids Xeon.
 */
struct cpu_ids {
    const char *word;           /* in the `cpu:` text */
    const char *arch, *vendor;
    int family, model;
};

static const struct cpu_ids cpu_table[] = {
    { "Grace", "arm64", NULL, 0, 0 },
    { "Neoverse", "arm64", NULL, 0, 0 },
    { "Sapphire Rapids", "x86_64", "GenuineIntel", 6, 0x8f },
    { "Emerald Rapids", "x86_64", "GenuineIntel", 6, 0xcf },
    { "Granite Rapids", "x86_64", "GenuineIntel", 6, 0xad },
    { "Ice Lake", "x86_64", "GenuineIntel", 6, 0x6a },
    { "Cascade Lake", "x86_64", "GenuineIntel", 6, 0x55 },
    { "Skylake", "x86_64", "GenuineIntel", 6, 0x55 },
    { "Broadwell", "x86_64", "GenuineIntel", 6, 0x4f },
    { "Raptor Lake", "x86_64", "GenuineIntel", 6, 0xb7 },
    { "Rome", "x86_64", "AuthenticAMD", 0x17, 0x31 },
    { "Zen 2", "x86_64", "AuthenticAMD", 0x17, 0x31 },
    { "Milan", "x86_64", "AuthenticAMD", 0x19, 0x01 },
    { "Zen 3", "x86_64", "AuthenticAMD", 0x19, 0x08 },
    { "Genoa", "x86_64", "AuthenticAMD", 0x19, 0x11 },
    { "Intel", "x86_64", "GenuineIntel", 6, 0x8f },
    { "AMD", "x86_64", "AuthenticAMD", 0x19, 0x01 },
};

static const struct cpu_ids *cpu_of(const char *text)
{
    for (size_t i = 0; i < sizeof(cpu_table) / sizeof(cpu_table[0]); i++) {
        if (text && strstr(text, cpu_table[i].word)) {
            return &cpu_table[i];
        }
    }
    return &cpu_table[2];
}

/*
 * The CPUs this process may run on, as sysfs writes a cpumap: 32-bit
 * hexadecimal groups, most significant first, joined by commas. Model:
 * the simulated sockets' cores are not the host's; every NUMA node gets
 * them all (as NVML's nvmlDeviceGetCpuAffinity, cuda/nvml/nvml_link.c).
 * "" when longer than NCCL's attribute values may be (255 characters:
 * hosts of more than 224 CPUs); NCCL then reads the host's own.
 */
static void affinity(char *out, size_t size)
{
    cpu_set_t s;
    unsigned top = 0;
    if (sched_getaffinity(0, sizeof(s), &s) < 0) {
        CPU_ZERO(&s);
        CPU_SET(0, &s);
    }
    for (unsigned c = 0; c < CPU_SETSIZE; c++) {
        top = CPU_ISSET(c, &s) ? c : top;
    }
    size_t n = 0;
    for (int w = (int)(top / 32); w >= 0 && n < size; w--) {
        unsigned v = 0;
        for (unsigned b = 0; b < 32; b++) {
            v |= CPU_ISSET((unsigned)w * 32 + b, &s) ? 1u << b : 0;
        }
        n += (size_t)snprintf(out + n, size - n, "%s%08x",
                              n ? "," : "", v);
    }
    if (n > XML_MAX_VALUE) {
        out[0] = '\0';
    }
}

/* ---- the tree --------------------------------------------------------------- */

static const char *const link_speed[] = {
    "", "2.5 GT/s PCIe", "5.0 GT/s PCIe", "8.0 GT/s PCIe",
    "16.0 GT/s PCIe", "32.0 GT/s PCIe", "64.0 GT/s PCIe",
};

static void indent(FILE *f, unsigned depth)
{
    fprintf(f, "%*s", (int)(2 * depth), "");
}

/* A lower-case bus id, as NCCL writes them. */
static void bus_id(char *out, size_t size, unsigned d, unsigned b,
                   unsigned dev, unsigned fn)
{
    snprintf(out, size, "%04x:%02x:%02x.%x", d, b, dev, fn);
}

static void write_gpu(FILE *f, const struct p2psim *p, unsigned g,
                      unsigned depth)
{
    struct p2psim_gpu_desc d;
    struct p2psim_nvlink_end end[64];
    p2psim_gpu_describe(p, g, &d);
    indent(f, depth);
    fprintf(f, "<gpu dev=\"%u\" sm=\"%u\">\n", g, d.cc_major * 10 + d.cc_minor);
    unsigned n = p2psim_gpu_nvlinks(p, g, end, 64);
    n = n < 64 ? n : 64;
    for (unsigned i = 0; i < n; i++) {
        unsigned count = 0, a[4];
        bool first = true;
        for (unsigned k = 0; k < n; k++) {
            bool same = end[k].nvswitch == end[i].nvswitch &&
                        end[k].peer == end[i].peer;
            first = first && !(same && k < i);
            count += same ? end[k].links : 0;
        }
        if (!first) {
            continue;           /* one <nvlink> per far end */
        }
        char target[32];
        struct p2psim_pci_ids ids = { .class_code = 0x068000 };
        if (end[i].nvswitch) {
            p2psim_nvswitch_pci_address(p, end[i].peer, &a[0], &a[1], &a[2],
                                        &a[3]);
        } else {
            p2psim_gpu_pci_address(p, end[i].peer, &a[0], &a[1], &a[2], &a[3]);
            p2psim_gpu_pci_ids(p, end[i].peer, &ids);
        }
        bus_id(target, sizeof(target), a[0], a[1], a[2], a[3]);
        indent(f, depth + 1);
        fprintf(f, "<nvlink target=\"%s\" count=\"%u\" tclass=\"0x%06x\"/>\n",
                target, count, ids.class_code);
    }
    indent(f, depth);
    fprintf(f, "</gpu>\n");
}

/* Node i of the tree and everything below it. */
static void write_pci(FILE *f, const struct p2psim *p,
                      const struct p2psim_pci_node *t, unsigned n,
                      unsigned i, unsigned depth)
{
    const struct p2psim_pci_node *o = &t[i];
    char bus[32];
    bus_id(bus, sizeof(bus), o->domain, o->bus, o->device, o->function);
    indent(f, depth);
    const char *speed = o->gen < sizeof(link_speed) / sizeof(link_speed[0])
                            ? link_speed[o->gen] : "";
    if (o->gpu < 0) {
        fprintf(f, "<pci busid=\"%s\" class=\"0x060400\" link_speed=\"%s\" "
                   "link_width=\"%u\">\n", bus, speed, o->width);
    } else {
        struct p2psim_pci_ids ids;
        p2psim_gpu_pci_ids(p, (unsigned)o->gpu, &ids);
        fprintf(f, "<pci busid=\"%s\" class=\"0x%06x\" vendor=\"0x%04x\" "
                   "device=\"0x%04x\" subsystem_vendor=\"0x%04x\" "
                   "subsystem_device=\"0x%04x\" link_speed=\"%s\" "
                   "link_width=\"%u\">\n", bus, ids.class_code, ids.vendor,
                ids.device, ids.subsystem_vendor, ids.subsystem_device, speed,
                o->width);
        write_gpu(f, p, (unsigned)o->gpu, depth + 1);
    }
    for (unsigned k = i + 1; k < n; k++) {
        if (t[k].parent == (int)i) {
            write_pci(f, p, t, n, k, depth + 1);
        }
    }
    indent(f, depth);
    fprintf(f, "</pci>\n");
}

int nccl_xml_write(const struct p2psim *p, FILE *f)
{
    struct p2psim_pci_node *t = calloc(XML_MAX_NODES, sizeof(*t));
    if (!t) {
        return -1;
    }
    unsigned n = p2psim_pci_tree(p, t, XML_MAX_NODES);
    n = n < XML_MAX_NODES ? n : XML_MAX_NODES;
    char aff[1100];
    affinity(aff, sizeof(aff));
    fprintf(f, "<system version=\"1\">\n");
    unsigned last_numa = 0;
    for (unsigned i = 0; i < n; i++) {
        last_numa = t[i].numa > last_numa ? t[i].numa : last_numa;
    }
    for (unsigned numa = 0; n && numa <= last_numa; numa++) {
        int first = -1;
        for (unsigned i = 0; i < n && first < 0; i++) {
            first = t[i].numa == numa ? (int)i : -1;
        }
        if (first < 0) {
            continue;           /* no GPU below this node */
        }
        const struct cpu_ids *c =
            cpu_of(p2psim_socket_cpu(p, t[first].socket));
        fprintf(f, "  <cpu numaid=\"%u\"", numa);
        if (aff[0]) {
            fprintf(f, " affinity=\"%s\"", aff);
        }
        fprintf(f, " arch=\"%s\"", c->arch);
        if (c->vendor) {
            fprintf(f, " vendor=\"%s\" familyid=\"%d\" modelid=\"%d\"",
                    c->vendor, c->family, c->model);
        }
        fprintf(f, ">\n");
        for (unsigned i = 0; i < n; i++) {
            if (t[i].numa == numa && t[i].parent < 0) {
                write_pci(f, p, t, n, i, 2);
            }
        }
        fprintf(f, "  </cpu>\n");
    }
    fprintf(f, "</system>\n");
    free(t);
    return ferror(f) ? -1 : 0;
}
