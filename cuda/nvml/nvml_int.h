/*
 * cuda/nvml/nvml_int.h - what the files of p2psim's NVML share: the
 * devices (one record per GPU of the simulated machine, the handles
 * programs hold) and the machine they are read from.
 *
 * File map:
 *   nvml_device.c  init and shutdown, errors, versions, devices, names,
 *                  PCI, memory, compute mode and capability; the report
 *                  of the stubs that the build generates for every other
 *                  export (cuda/driver/gen-unserved.awk, from
 *                  libnvidia-ml.exports)
 *   nvml_link.c    NVLink, P2P status, topology, CPU affinity, fields
 *   libnvidia-ml.map, libnvidia-ml.exports, local.mk: the build
 *
 * NVML keeps no machine state of its own: it reads the runtime's
 * (cuda/cudart/drv_bridge.h, p2psim_drv_machine), so its bus ids, UUIDs
 * and P2P answers are the runtime's.
 */
#ifndef P2PSIM_CUDA_NVML_NVML_INT_H
#define P2PSIM_CUDA_NVML_NVML_INT_H

#include "cuda/nvml/nvml.h"
#include "cuda/cudart/drv_bridge.h"

struct nvmlDevice_st {
    unsigned index;             /* the GPU's CUDA ordinal */
};

/* The machine; NULL before nvmlInit or after the last nvmlShutdown. */
extern const struct p2psim_drv_machine *nvml_m;
extern unsigned nvml_n_dev;

/* The GPU of handle d: its index, or -1 (not a handle of ours, or NVML
 * not initialized: *err says which). */
int nvml_dev(nvmlDevice_t d, nvmlReturn_t *err);
/* Declares `int g` (the index) or returns the error from the caller. */
#define NVML_DEV(g, d)                                                        \
    nvmlReturn_t g##_err_;                                                    \
    int g = nvml_dev(d, &g##_err_);                                           \
    if (g < 0) {                                                              \
        return g##_err_;                                                      \
    }

/* The handle of GPU g. */
nvmlDevice_t nvml_handle(unsigned g);

/* *pci for the function at a[] (domain, bus, device, function) of ids
 * (device << 16 | vendor) and subsystem ids, both bus id forms made. */
void nvml_pci_fill(nvmlPciInfo_t *pci, const unsigned a[4], unsigned ids,
                   unsigned subsystem);
/* The first layout of *v3 (its legacy bus id). */
void nvml_pci_v1(const nvmlPciInfo_t *v3, nvmlPciInfo_v1_t *v1);

#endif /* P2PSIM_CUDA_NVML_NVML_INT_H */
