/*
 * cuda/cudart/channel.c - channel descriptors (cudaCreateChannelDesc): the
 * element format of CUDA arrays and textures (array.c, texture.c), a
 * plain value.
 */
#include <config.h>

#include "cuda/cudart/rt.h"

struct cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w,
                                                   enum cudaChannelFormatKind f)
{
    struct cudaChannelFormatDesc d = {x, y, z, w, f};
    return d;
}
