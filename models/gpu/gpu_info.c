/*
 * models/gpu/gpu_info.c - what a GPU product is: the catalog values that
 * do not drive the PCIe model but that the API reports (device properties)
 * and that decide P2P (the GeForce product block).
 */
#include <config.h>

#include "models/gpu/gpu.h"

#include <stdio.h>
#include <string.h>

#include "models/gpu/gpu_int.h"
#include "sim/component.h"
#include "sim/error.h"
#include "sim/props.h"
#include "sim/units.h"

/*
 * The fraction of the memory's peak that copies within it reach, measured
 * on the project's H200 (data/h200-x1/compare.txt): 256 MB device-to-device
 * copies move 4.16 TB/s read plus written against the 4814 GB/s that 2 x
 * 3201 MHz x 6016 bit / 8 gives. Refresh, bank and read-write turnaround
 * losses are of the same kind on other HBM and GDDR parts, so the fraction
 * is taken for them too [estimate]; it predicts 776 GB/s for the V100 (784
 * measured, data/calibration/dgx1-v100-hybrid-cube-mesh.yaml) and 871
 * GB/s for the RTX 4090 (910-941 measured, data/calibration/8x-rtx4090-*).
 */
#define MEM_ACHIEVED_PPM 864000u /* 4.16 / 4.814, in parts per million */

uint64_t gpu_info_memory_rate(const struct gpu_info *info)
{
    /* 2 transfers per clock x bits / 8: bytes per second at peak */
    uint64_t peak = info->mem_clock_hz * info->mem_bus_width / 4u;
    return peak / 1000000u * MEM_ACHIEVED_PPM;
}

static const char *const class_names[] = { "datacenter", "workstation",
                                           "geforce", NULL };
static const char *const p2p_names[] = { "allowed", "blocked", NULL };

static int get_text(const struct sim_props *p, const char *key, char *out,
                    size_t n, struct sim_error *err)
{
    const char *v = NULL;
    int rc = sim_props_get_str(p, key, &v, 0, err);
    if (rc == 0 && v) {
        snprintf(out, n, "%s", v);
    }
    return rc;
}

static int get_cc(struct gpu_info *info, const struct sim_props *p,
                  struct sim_error *err)
{
    const char *v = NULL;
    int rc = sim_props_get_str(p, "compute-capability", &v, 0, err);
    if (rc < 0 || !v) {
        return rc;
    }
    unsigned major, minor;
    char extra;
    if (sscanf(v, "%u.%u%c", &major, &minor, &extra) != 2 || major > 20 ||
        minor > 9) {
        return sim_props_error(p, "compute-capability", SIM_EINVAL, err,
                               "%s: compute-capability: '%s' is not a "
                               "version such as \"9.0\"", p->owner, v);
    }
    info->cc_major = major;
    info->cc_minor = minor;
    return 0;
}

int gpu_info_configure(struct gpu_info *info, const char *name,
                       const struct sim_props *p, struct sim_error *err)
{
    memset(info, 0, sizeof(*info));
    snprintf(info->name, sizeof(info->name), "%s", name);
    info->cc_major = 9;
    info->sms = 132;
    info->sm_clock_hz = UINT64_C(1980000000);
    info->mem_clock_hz = UINT64_C(2619000000);
    info->mem_bus_width = 5120;
    info->l2_bytes = UINT64_C(50) << 20;
    info->atomics_pcie = true;
    int cls = GPU_CLASS_DATACENTER, p2p = 0;
    uint64_t v;
    int rc = 0;
    rc = rc ? rc : get_text(p, "name", info->name, sizeof(info->name), err);
    rc = rc ? rc : sim_props_get_enum(p, "class", class_names, &cls, 0, err);
    rc = rc ? rc : get_text(p, "architecture", info->architecture,
                            sizeof(info->architecture), err);
    rc = rc ? rc : get_cc(info, p, err);
    /* compute data compression came with Ampere (compute capability 8.0) */
    info->compression = info->cc_major >= 8;
    rc = rc ? rc : sim_props_get_bool(p, "compression", &info->compression,
                                      0, err);
    v = info->sms;
    rc = rc ? rc : sim_props_get_u64(p, "sms", &v, 1, 4096, 0, err);
    info->sms = (unsigned)v;
    rc = rc ? rc : sim_props_get_freq(p, "sm-clock", &info->sm_clock_hz, 0, err);
    rc = rc ? rc : sim_props_get_freq(p, "memory-clock", &info->mem_clock_hz, 0,
                                      err);
    v = info->mem_bus_width;
    rc = rc ? rc : sim_props_get_u64(p, "memory-bus-width", &v, 8, 65536, 0,
                                     err);
    info->mem_bus_width = (unsigned)v;
    rc = rc ? rc : sim_props_get_size(p, "l2-cache", &info->l2_bytes, 0, err);
    v = 0;
    rc = rc ? rc : sim_props_get_u64(p, "nvlink-links", &v, 0, 64, 0, err);
    info->nvlink_links = (unsigned)v;
    v = 0;
    rc = rc ? rc : sim_props_get_u64(p, "nvlink-generation", &v, 0, 5, 0, err);
    info->nvlink_gen = (unsigned)v;
    rc = rc ? rc : sim_props_get_rate(p, "nvlink-link-rate",
                                      &info->nvlink_link_rate, 0, err);
    rc = rc ? rc : sim_props_get_bool(p, "atomics-pcie", &info->atomics_pcie, 0,
                                      err);
    rc = rc ? rc : sim_props_get_bool(p, "atomics-nvlink",
                                      &info->atomics_nvlink, 0, err);
    rc = rc ? rc : sim_props_get_enum(p, "p2p", p2p_names, &p2p, 0, err);
    rc = rc ? rc : sim_props_get_bool(p, "p2p-unlocked", &info->p2p_unlocked, 0,
                                      err);
    if (rc < 0) {
        return rc;
    }
    info->class_ = (enum gpu_class)cls;
    info->p2p_blocked = p2p == 1;
    if (info->nvlink_links && !info->nvlink_gen) {
        return sim_props_error(p, "nvlink-links", SIM_EINVAL, err,
                               "%s: nvlink-links needs nvlink-generation",
                               p->owner);
    }
    return 0;
}

const struct gpu_info *gpu_get_info(const struct sim_component *g)
{
    SIM_ASSERT(g && g->ops == &gpu_ops, "gpu_get_info on a non-GPU");
    return &((const struct gpu *)sim_component_state(g))->info;
}
