/*
 * machine/kernel/heap.c - the device heap: what a kernel's malloc and free
 * (PTX_MEM_MALLOC, PTX_MEM_FREE) do. The heap is device memory the
 * launcher owns (struct p2psim_launch heap_base, heap_bytes: the runtime's
 * cudaLimitMallocHeapSize bytes); the blocks handed out are kept here, per
 * GPU, for the machine's life, so a block a kernel allocates outlives it
 * and a later kernel may free it. A launch naming another heap on the GPU
 * (the limit changed) starts that one empty.
 *
 * Blocks are 16-byte aligned, first fit over the blocks in address order;
 * malloc(0) returns a block of its own. A request that does not fit
 * returns 0 (NULL), as CUDA's malloc does; free(0) and free of an address
 * that is no block's start do nothing.
 *
 * Model: warps are served one request at a time, a warp's lanes in lane
 * order (so the heap is consistent across warps, blocks and grids); a
 * call takes no simulated time and makes no memory traffic.
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "machine/kernel/kernel.h"
#include "machine/kernel/kernel_int.h"
#include "machine/p2psim_int.h"

#define KX_HEAP_ALIGN 16u

struct kx_heap_blk {
    uint64_t at, len;           /* offset in the heap, bytes */
};

struct kx_heap {
    unsigned gpu;
    uint64_t base, bytes;
    struct kx_heap_blk *blk;    /* in address order */
    unsigned n, cap;
    struct kx_heap *next;
};

/* The heap of the grid's launch, made (empty) on first use. */
static struct kx_heap *heap_of(struct kx_grid *gr)
{
    struct p2psim *p = gr->p;
    struct kx_heap *h;
    for (h = p->heaps; h; h = h->next) {
        if (h->gpu == gr->l.gpu) {
            break;
        }
    }
    if (!h) {
        h = calloc(1, sizeof(*h));
        if (!h) {
            return NULL;
        }
        h->gpu = gr->l.gpu;
        h->next = p->heaps;
        p->heaps = h;
    }
    if (h->base != gr->l.heap_base || h->bytes != gr->l.heap_bytes) {
        h->base = gr->l.heap_base;
        h->bytes = gr->l.heap_bytes;
        h->n = 0;
    }
    return h;
}

/* A block of size bytes: its address, or 0. Return -1: no host memory. */
static int heap_alloc(struct kx_heap *h, uint64_t size, uint64_t *addr)
{
    uint64_t len = size ? size : 1;
    *addr = 0;
    if (len > h->bytes) {
        return 0;
    }
    len = (len + KX_HEAP_ALIGN - 1) / KX_HEAP_ALIGN * KX_HEAP_ALIGN;
    uint64_t at = 0;
    unsigned i;
    for (i = 0; i < h->n; i++) {
        if (h->blk[i].at - at >= len) {
            break;
        }
        at = h->blk[i].at + h->blk[i].len;
    }
    if (at > h->bytes || h->bytes - at < len) {
        return 0;
    }
    if (h->n == h->cap) {
        unsigned cap = h->cap ? 2 * h->cap : 64;
        struct kx_heap_blk *b = realloc(h->blk, cap * sizeof(*b));
        if (!b) {
            return -1;
        }
        h->blk = b;
        h->cap = cap;
    }
    memmove(&h->blk[i + 1], &h->blk[i], (h->n - i) * sizeof(h->blk[0]));
    h->blk[i].at = at;
    h->blk[i].len = len;
    h->n++;
    *addr = h->base + at;
    return 0;
}

static void heap_free(struct kx_heap *h, uint64_t addr)
{
    if (addr < h->base || addr - h->base >= h->bytes) {
        return;
    }
    uint64_t at = addr - h->base;
    unsigned lo = 0, hi = h->n;
    while (lo < hi) {
        unsigned mid = (lo + hi) / 2;
        if (h->blk[mid].at < at) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    if (lo < h->n && h->blk[lo].at == at) {
        memmove(&h->blk[lo], &h->blk[lo + 1],
                (h->n - lo - 1) * sizeof(h->blk[0]));
        h->n--;
    }
}

int kx__heap_serve(struct kx_grid *gr, struct ptx_mem_req *q)
{
    if (!gr->l.heap_base) {
        kx__fail(gr, P2PSIM_KERNEL_MISUSE, "PTX line %u: malloc or free in "
                 "a launch without a device heap", q->line);
        return -1;
    }
    struct kx_heap *h = heap_of(gr);
    if (!h) {
        kx__fail(gr, P2PSIM_KERNEL_MISUSE, "out of host memory for the "
                 "device heap");
        return -1;
    }
    for (unsigned l = 0; l < PTX_WARP_SIZE; l++) {
        if (!(q->mask >> l & 1u)) {
            continue;
        }
        if (q->op == PTX_MEM_FREE) {
            heap_free(h, q->data[l][0]);
        } else if (heap_alloc(h, q->data[l][0], &q->result[l][0]) < 0) {
            kx__fail(gr, P2PSIM_KERNEL_MISUSE, "out of host memory for "
                     "the device heap");
            return -1;
        }
    }
    return 0;
}

void kx__heap_fini(struct p2psim *p)
{
    while (p->heaps) {
        struct kx_heap *h = p->heaps;
        p->heaps = h->next;
        free(h->blk);
        free(h);
    }
}
