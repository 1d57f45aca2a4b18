/*
 * cuda/cudart/texture.c - texture and surface objects: cudaCreateTextureObject,
 * cudaDestroyTextureObject, cudaGetTextureObject{Resource,Texture,
 * ResourceView}Desc, cudaCreateSurfaceObject, cudaDestroySurfaceObject,
 * cudaGetSurfaceObjectResourceDesc.
 *
 * An object is a descriptor (struct ptx_tex_desc, ptx/ptx_tex.h) written
 * into a small allocation of device memory on the resource's device; the
 * handle is that allocation's address. Kernels take it as a parameter and
 * the executor reads the descriptor where it lies (machine/kernel/
 * texture.c), in this process or in a p2psim server alike, so no table
 * has to follow the kernel. The runtime keeps the descriptors the program
 * gave, for the Get calls.
 *
 * Simplifications: resource views are recorded, not applied (a view with
 * a format is refused); sRGB and anisotropy are recorded only.
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "cuda/cudart/memory.h"
#include "cuda/cudart/memory_int.h"
#include "cuda/cudart/rt.h"
#include "cuda/cudart/texture_int.h"
#include "ptx/ptx_tex.h"

struct tex_obj {
    struct tex_obj *next;
    uint64_t handle;            /* the descriptor's device address */
    bool surface;
    struct cudaResourceDesc res;
    struct cudaTextureDesc tex;
    struct cudaResourceViewDesc view;
};

/* Every live object (under the runtime lock). */
static struct tex_obj *objs;

static struct tex_obj *obj_find(uint64_t handle, bool surface)
{
    for (struct tex_obj *o = objs; o; o = o->next) {
        if (o->handle == handle && o->surface == surface) {
            return o;
        }
    }
    return NULL;
}

/* The channels of a format into the descriptor. */
static cudaError_t desc_format(struct ptx_tex_desc *d,
                               const struct cudaChannelFormatDesc *c)
{
    unsigned elem;
    cudaError_t e = tex_chan_check(c, &elem);
    if (e) {
        return e;
    }
    const int bits[4] = {c->x, c->y, c->z, c->w};
    for (unsigned i = 0; i < 4 && bits[i]; i++) {
        d->chan_bits[i] = (uint8_t)bits[i];
        d->n_chan = (uint8_t)(i + 1);
    }
    d->elem_bytes = (uint8_t)elem;
    d->chan_kind = c->f == cudaChannelFormatKindFloat ? PTX_TEX_FLOAT
                   : c->f == cudaChannelFormatKindSigned ? PTX_TEX_SIGNED
                                                         : PTX_TEX_UNSIGNED;
    return cudaSuccess;
}

/* Device memory [p, p + len) of one device: that device, or -1. */
static int device_of(const void *p, uint64_t len)
{
    struct rt_ptr q;
    rt_ptr_find(p, &q);
    return q.where == RT_WHERE_DEVICE && q.avail >= len ? q.device : -1;
}

/* The resource part of a descriptor; *dev: where the resource is. */
static cudaError_t desc_resource(struct ptx_tex_desc *d,
                                 const struct cudaResourceDesc *r,
                                 bool surface, int *dev)
{
    cudaError_t e;
    d->depth = d->layers = d->height = 1;
    switch (r->resType) {
    case cudaResourceTypeMipmappedArray:
    case cudaResourceTypeArray: {
        const struct cudaMipmappedArray *m = NULL;
        const struct cudaArray *a;
        if (r->resType == cudaResourceTypeMipmappedArray) {
            m = tex_mipmap_find(r->res.mipmap.mipmap);
            if (!m || surface) {
                return m ? cudaErrorInvalidValue
                         : cudaErrorInvalidResourceHandle;
            }
            a = m->level[0];
        } else {
            a = tex_array_find(r->res.array.array);
        }
        if (!a) {
            return cudaErrorInvalidResourceHandle;
        }
        if (surface && !(a->flags & cudaArraySurfaceLoadStore)) {
            return cudaErrorInvalidValue;
        }
        if ((e = desc_format(d, &a->desc))) {
            return e;
        }
        d->base = a->base;
        d->size = a->bytes;
        d->pitch = a->pitch;
        d->slice = a->pitch * a->rows;
        d->width = (uint32_t)a->extent.width;
        d->height = (uint32_t)a->rows;
        if (a->flags & cudaArrayCubemap) {
            d->flags = 2 | PTX_TEX_CUBE |
                       (a->flags & cudaArrayLayered ? PTX_TEX_LAYERED : 0);
            d->layers = (uint32_t)a->slices;
        } else if (a->flags & cudaArrayLayered) {
            d->flags = (a->extent.height ? 2 : 1) | PTX_TEX_LAYERED;
            d->layers = (uint32_t)a->slices;
        } else {
            d->flags = a->extent.depth ? 3 : a->extent.height ? 2 : 1;
            d->depth = (uint32_t)a->slices;
        }
        for (unsigned l = 0; m && l < m->n_levels; l++) {
            const struct cudaArray *v = m->level[l];
            d->level[l] = (struct ptx_tex_level){
                v->base, v->bytes, v->pitch, v->pitch * v->rows,
                (uint32_t)v->extent.width, (uint32_t)v->rows,
                d->flags & PTX_TEX_LAYERED ? 1 : (uint32_t)v->slices, 0};
            d->n_levels = (uint8_t)m->n_levels;
        }
        *dev = a->device;
        return cudaSuccess;
    }
    case cudaResourceTypeLinear:
        if (surface || (e = desc_format(d, &r->res.linear.desc))) {
            return surface ? cudaErrorInvalidValue : e;
        }
        d->base = (uintptr_t)r->res.linear.devPtr;
        d->size = r->res.linear.sizeInBytes;
        if (d->size / d->elem_bytes == 0 ||
            d->size / d->elem_bytes > PTX_TEX_MAX_WIDTH) {
            return cudaErrorInvalidValue;
        }
        d->width = (uint32_t)(d->size / d->elem_bytes);
        d->pitch = d->size;
        d->flags = 1 | PTX_TEX_LINEAR;
        break;
    case cudaResourceTypePitch2D:
        if (surface || (e = desc_format(d, &r->res.pitch2D.desc))) {
            return surface ? cudaErrorInvalidValue : e;
        }
        if (r->res.pitch2D.width == 0 || r->res.pitch2D.height == 0 ||
            r->res.pitch2D.width > PTX_TEX_MAX_DIM ||
            r->res.pitch2D.height > PTX_TEX_MAX_DIM ||
            r->res.pitch2D.pitchInBytes <
                r->res.pitch2D.width * d->elem_bytes) {
            return cudaErrorInvalidValue;
        }
        d->base = (uintptr_t)r->res.pitch2D.devPtr;
        d->width = (uint32_t)r->res.pitch2D.width;
        d->height = (uint32_t)r->res.pitch2D.height;
        d->pitch = r->res.pitch2D.pitchInBytes;
        d->size = (d->height - 1) * d->pitch + (uint64_t)d->width *
                                                   d->elem_bytes;
        d->flags = 2;
        break;
    default:
        return cudaErrorInvalidValue;
    }
    *dev = device_of((const void *)(uintptr_t)d->base, d->size);
    return *dev < 0 ? cudaErrorInvalidValue : cudaSuccess;
}

static cudaError_t desc_sampling(struct ptx_tex_desc *d,
                                 const struct cudaTextureDesc *t)
{
    for (unsigned i = 0; i < 3; i++) {
        if ((unsigned)t->addressMode[i] > cudaAddressModeBorder) {
            return cudaErrorInvalidValue;
        }
        d->addr[i] = (uint8_t)t->addressMode[i];
    }
    if ((unsigned)t->filterMode > cudaFilterModeLinear ||
        (unsigned)t->readMode > cudaReadModeNormalizedFloat) {
        return cudaErrorInvalidValue;
    }
    /* normalized reads are of 8 and 16-bit integers */
    if (t->readMode == cudaReadModeNormalizedFloat &&
        d->chan_kind != PTX_TEX_FLOAT && d->chan_bits[0] == 32) {
        return cudaErrorInvalidValue;
    }
    d->filter_linear = t->filterMode == cudaFilterModeLinear;
    d->read_normalized = t->readMode == cudaReadModeNormalizedFloat;
    d->norm_coords = t->normalizedCoords != 0;
    d->srgb = t->sRGB != 0;
    d->mip_linear = t->mipmapFilterMode == cudaFilterModeLinear;
    d->lod_bias = t->mipmapLevelBias;
    d->lod_min = t->minMipmapLevelClamp;
    d->lod_max = t->maxMipmapLevelClamp;
    memcpy(d->border, t->borderColor, sizeof(d->border));
    return cudaSuccess;
}

static cudaError_t obj_create(unsigned long long *out,
                              const struct cudaResourceDesc *r,
                              const struct cudaTextureDesc *t,
                              const struct cudaResourceViewDesc *v,
                              bool surface)
{
    if (!out || !r || (!surface && !t) || r->flags) {
        return cudaErrorInvalidValue;
    }
    if (v && v->format != cudaResViewFormatNone) {
        return cudaErrorNotSupported;
    }
    struct ptx_tex_desc d;
    memset(&d, 0, sizeof(d));
    d.magic = PTX_TEX_MAGIC;
    d.version = PTX_TEX_VERSION;
    int dev = -1;
    cudaError_t e = desc_resource(&d, r, surface, &dev);
    if (!e && !surface) {
        e = desc_sampling(&d, t);
    }
    if (surface) {
        d.flags |= PTX_TEX_SURFACE;
    }
    char why[160];
    if (!e && ptx_tex_desc_check(&d, why, sizeof(why))) {
        e = cudaErrorInvalidValue;
    }
    if (e) {
        return e;
    }
    struct tex_obj *o = calloc(1, sizeof(*o));
    void *p = NULL;
    if (!o || (e = mem_device_alloc(dev, sizeof(d), NULL, &p))) {
        free(o);
        return e ? e : cudaErrorMemoryAllocation;
    }
    rt_machine->hbm_write((unsigned)dev,
                          (uintptr_t)p - rt.dev[dev].va_base, &d, sizeof(d));
    o->handle = (uintptr_t)p;
    o->surface = surface;
    o->res = *r;
    if (t) {
        o->tex = *t;
    }
    if (v) {
        o->view = *v;
    }
    o->next = objs;
    objs = o;
    *out = o->handle;
    return cudaSuccess;
}

static cudaError_t obj_destroy(uint64_t handle, bool surface)
{
    struct tex_obj *o = obj_find(handle, surface);
    if (!o) {
        return handle ? cudaErrorInvalidValue : cudaSuccess;
    }
    for (struct tex_obj **pp = &objs; *pp; pp = &(*pp)->next) {
        if (*pp == o) {
            *pp = o->next;
            break;
        }
    }
    /* waits for the device: a kernel may still read the descriptor */
    cudaError_t e = mem_free_synced((void *)(uintptr_t)handle, RT_MEM_DEVICE);
    free(o);
    return e;
}

/* One of the Get calls: what of object handle goes to out. */
enum obj_part { PART_RES, PART_TEX, PART_VIEW };

static cudaError_t obj_get(void *out, uint64_t handle, bool surface,
                           enum obj_part part)
{
    const struct tex_obj *o = obj_find(handle, surface);
    if (!out || !o) {
        return cudaErrorInvalidValue;
    }
    switch (part) {
    case PART_RES:
        memcpy(out, &o->res, sizeof(o->res));
        break;
    case PART_TEX:
        memcpy(out, &o->tex, sizeof(o->tex));
        break;
    default:
        memcpy(out, &o->view, sizeof(o->view));
        break;
    }
    return cudaSuccess;
}

cudaError_t CUDARTAPI cudaCreateTextureObject(
    cudaTextureObject_t *pTexObject, const struct cudaResourceDesc *pResDesc,
    const struct cudaTextureDesc *pTexDesc,
    const struct cudaResourceViewDesc *pResViewDesc)
{
    SERVE(obj_create(pTexObject, pResDesc, pTexDesc, pResViewDesc, false));
}

cudaError_t CUDARTAPI cudaDestroyTextureObject(cudaTextureObject_t texObject)
{
    RT_SERVE(RT_NO_COST, obj_destroy(texObject, false));
}

cudaError_t CUDARTAPI cudaGetTextureObjectResourceDesc(
    struct cudaResourceDesc *pResDesc, cudaTextureObject_t texObject)
{
    SERVE(obj_get(pResDesc, texObject, false, PART_RES));
}

cudaError_t CUDARTAPI cudaGetTextureObjectTextureDesc(
    struct cudaTextureDesc *pTexDesc, cudaTextureObject_t texObject)
{
    SERVE(obj_get(pTexDesc, texObject, false, PART_TEX));
}

cudaError_t CUDARTAPI cudaGetTextureObjectResourceViewDesc(
    struct cudaResourceViewDesc *pResViewDesc, cudaTextureObject_t texObject)
{
    SERVE(obj_get(pResViewDesc, texObject, false, PART_VIEW));
}

cudaError_t CUDARTAPI cudaCreateSurfaceObject(
    cudaSurfaceObject_t *pSurfObject, const struct cudaResourceDesc *pResDesc)
{
    SERVE(obj_create(pSurfObject, pResDesc, NULL, NULL, true));
}

cudaError_t CUDARTAPI cudaDestroySurfaceObject(cudaSurfaceObject_t surfObject)
{
    RT_SERVE(RT_NO_COST, obj_destroy(surfObject, true));
}

cudaError_t CUDARTAPI cudaGetSurfaceObjectResourceDesc(
    struct cudaResourceDesc *pResDesc, cudaSurfaceObject_t surfObject)
{
    SERVE(obj_get(pResDesc, surfObject, true, PART_RES));
}
