/*
 * cuda/cudart/channel.c - channel descriptors (cudaCreateChannelDesc): the
 * element format of CUDA arrays and textures, a plain value. p2psim has
 * no CUDA arrays or textures yet; the descriptor is served so that
 * programs which build one (most texture samples, before they fail on
 * the array calls) get CUDA's value rather than a stub's.
 */
#include <config.h>

#include "cuda/cudart/rt.h"

struct cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w,
                                                   enum cudaChannelFormatKind f)
{
    struct cudaChannelFormatDesc d = {x, y, z, w, f};
    return d;
}
