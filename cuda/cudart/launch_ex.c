/*
 * cuda/cudart/launch_ex.c - the extensible launch, cudaLaunchKernelExC
 * (and its per-thread form), which the C++ cudaLaunchKernelEx templates
 * of cuda_runtime.h call: a configuration (grid, block, dynamic shared
 * memory, stream) and a list of attributes, launched as cudaLaunchKernel
 * or cudaLaunchCooperativeKernel (launch.c) once the attributes are
 * checked.
 *
 * Attributes, by what the simulated GPU can honour:
 *   cooperative              honoured (a cooperative launch)
 *   cluster dimension        1x1x1 honoured (the SMs run clusters of one
 *                            block, launch.c); larger: cudaErrorNotSupported
 *   priority, access policy window, cluster scheduling policy, memory
 *   sync domain (and map), preferred cluster dimension, shared memory
 *   carveout, NVLink-centric scheduling, programmatic stream
 *   serialization             accepted hints with no effect (the last one
 *                            permits overlap with the kernel before; not
 *                            overlapping is a valid schedule)
 *   programmatic event, launch completion event: cudaErrorNotSupported
 *   synchronization policy (streams only), device-updatable kernel node
 *   (graphs only), an unknown id: cudaErrorInvalidValue
 * A refused attribute is said once on stderr. func may be a host stub or
 * a cudaKernel_t.
 */
#include <config.h>

#include "cuda/cudart/launch_int.h"

#include <stdio.h>

/* Say once why an attribute is refused, and return e. */
static cudaError_t refuse(cudaLaunchAttributeID id, const char *why,
                          cudaError_t e)
{
    static bool said[32];
    if ((unsigned)id >= 32 || !said[id]) {
        if ((unsigned)id < 32) {
            said[id] = true;
        }
        fprintf(stderr, "p2psim: cudaLaunchKernelExC: launch attribute %d "
                        "%s\n", (int)id, why);
    }
    return e;
}

/* Check the attributes; *coop: a cooperative launch. */
static cudaError_t check_attrs(const cudaLaunchConfig_t *c, bool *coop)
{
    *coop = false;
    if (c->numAttrs && !c->attrs) {
        return cudaErrorInvalidValue;
    }
    for (unsigned i = 0; i < c->numAttrs; i++) {
        const cudaLaunchAttribute *a = &c->attrs[i];
        switch (a->id) {
        case cudaLaunchAttributeIgnore:
        case cudaLaunchAttributeAccessPolicyWindow:
        case cudaLaunchAttributeClusterSchedulingPolicyPreference:
        case cudaLaunchAttributeProgrammaticStreamSerialization:
        case cudaLaunchAttributePriority:
        case cudaLaunchAttributeMemSyncDomainMap:
        case cudaLaunchAttributeMemSyncDomain:
        case cudaLaunchAttributePreferredClusterDimension:
        case cudaLaunchAttributePreferredSharedMemoryCarveout:
        case cudaLaunchAttributeNvlinkUtilCentricScheduling:
            break;
        case cudaLaunchAttributeCooperative:
            *coop = a->val.cooperative != 0;
            break;
        case cudaLaunchAttributeClusterDimension: {
            unsigned x = a->val.clusterDim.x, y = a->val.clusterDim.y,
                     z = a->val.clusterDim.z;
            if (!x || !y || !z) {
                return cudaErrorInvalidValue;
            }
            if (x * y * z != 1) {
                return refuse(a->id, "(a cluster of more than one block) "
                                     "is not served: cudaErrorNotSupported",
                              cudaErrorNotSupported);
            }
            break;
        }
        case cudaLaunchAttributeProgrammaticEvent:
        case cudaLaunchAttributeLaunchCompletionEvent:
            return refuse(a->id, "(an event fired by the grid) is not "
                                 "served: cudaErrorNotSupported",
                          cudaErrorNotSupported);
        default:
            return refuse(a->id, "is not valid for a launch: "
                                 "cudaErrorInvalidValue",
                          cudaErrorInvalidValue);
        }
    }
    return cudaSuccess;
}

static cudaError_t launch_ex(const cudaLaunchConfig_t *c, const void *func,
                             void **args, bool per_thread)
{
    bool coop;
    if (!c) {
        return cudart_error_return(cudaErrorInvalidValue);
    }
    cudaError_t e = check_attrs(c, &coop);
    if (e) {
        return cudart_error_return(e);
    }
    /* A cudaKernel_t names its stub. */
    pthread_mutex_lock(&reg_lock);
    struct CUkern_st *k = reg_kernel_of_handle((cudaKernel_t)func);
    if (k) {
        func = k->stub;
    }
    pthread_mutex_unlock(&reg_lock);
    if (coop) {
        return per_thread
                   ? cudaLaunchCooperativeKernel_ptsz(func, c->gridDim,
                                                      c->blockDim, args,
                                                      c->dynamicSmemBytes,
                                                      c->stream)
                   : cudaLaunchCooperativeKernel(func, c->gridDim,
                                                 c->blockDim, args,
                                                 c->dynamicSmemBytes,
                                                 c->stream);
    }
    return per_thread ? cudaLaunchKernel_ptsz(func, c->gridDim, c->blockDim,
                                              args, c->dynamicSmemBytes,
                                              c->stream)
                      : cudaLaunchKernel(func, c->gridDim, c->blockDim, args,
                                         c->dynamicSmemBytes, c->stream);
}

cudaError_t CUDARTAPI cudaLaunchKernelExC(const cudaLaunchConfig_t *config,
                                          const void *func, void **args)
{
    return launch_ex(config, func, args, false);
}

cudaError_t CUDARTAPI cudaLaunchKernelExC_ptsz(const cudaLaunchConfig_t *config,
                                               const void *func, void **args)
{
    return launch_ex(config, func, args, true);
}
