/*
 * api/cudart/remote.c - the machine through a p2psim server (being
 * written).
 */
#include <config.h>

#include <stdio.h>

#include "api/cudart/rt.h"

cudaError_t rt_remote_connect(const char *path)
{
    fprintf(stderr, "p2psim: P2PSIM_SERVER=%s: multi-process programs are "
                    "not supported yet\n", path);
    return cudaErrorNotSupported;
}
