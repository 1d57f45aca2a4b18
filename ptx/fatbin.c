/*
 * ptx/fatbin.c - the PTX text of an nvcc fat binary.
 *
 * Layout (../shared/reference/cuda-api.md §3.4; all little-endian):
 *
 *   wrapper (24 bytes)   u32 magic 0x466243B1, u32 version (1; 2 = -rdc),
 *                        u64 pointer to the container, u64 unused
 *   container header     u32 magic 0xBA55ED50, u16 version, u16 header
 *   (16 bytes)           size, u64 bytes of entries that follow
 *   entry header         u16 kind (1 PTX, 2 ELF), u16 version, u32 header
 *   (>= 64 bytes)        size, u64 payload size, u32 compressed size,
 *                        u32 -, u16 minor, u16 major, u32 arch, u32 name
 *                        offset, u32 name length, u64 flags, u64 -,
 *                        u64 uncompressed size
 *   payload              payload-size bytes after the entry header
 *
 * Flags 0x8000 mark a zstd-compressed payload (nvcc 13's default for
 * PTX), 0x2000 an LZ4 one (-compress-mode=speed), which we do not
 * decode. A plain PTX payload is NUL-terminated text.
 */
#include <config.h>

#include "ptx/ptx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef HAVE_ZSTD
#include <zstd.h>
#endif

#include "ptx/ptx_int.h"

#define FATBIN_WRAPPER_MAGIC 0x466243B1u
#define FATBIN_CONTAINER_MAGIC PTX_FATBIN_CONTAINER_MAGIC
#define FATBIN_KIND_PTX 1
#define FATBIN_KIND_ELF 2
#define FATBIN_FLAG_LZ4 0x2000u
#define FATBIN_FLAG_ZSTD 0x8000u
#define FATBIN_ENTRY_MIN 64u

/* A fat binary's error has no PTX line. */
#define fb_err(err, code, ...) ptx__set_err(err, code, 0, __VA_ARGS__)

/* One entry's PTX text, decompressed; malloc'd and NUL-terminated. */
static int entry_text(const uint8_t *payload, uint64_t payload_bytes,
                      uint32_t compressed_bytes, uint64_t flags,
                      uint64_t plain_bytes, char **text, size_t *len,
                      struct ptx_error *err)
{
    if (flags & FATBIN_FLAG_LZ4) {
        fb_err(err, PTX_ECOMPRESS, "the fat binary's PTX is LZ4-compressed "
               "(nvcc -compress-mode=speed), which p2psim does not decode; "
               "rebuild with the default compression or -no-compress");
        return PTX_ECOMPRESS;
    }
    if (flags & FATBIN_FLAG_ZSTD) {
#ifdef HAVE_ZSTD
        size_t in = compressed_bytes && compressed_bytes <= payload_bytes
                        ? compressed_bytes
                        : (size_t)payload_bytes;
        unsigned long long cap = ZSTD_getFrameContentSize(payload, in);
        if (cap == ZSTD_CONTENTSIZE_ERROR) {
            fb_err(err, PTX_EINVAL, "fat binary: corrupt zstd PTX entry");
            return PTX_EINVAL;
        }
        if (cap == ZSTD_CONTENTSIZE_UNKNOWN) {
            cap = plain_bytes;
        } else if (plain_bytes && cap > plain_bytes) {
            /* The frame may not claim more than the entry says it holds;
             * the output buffer is sized from the smaller of the two. */
            fb_err(err, PTX_EINVAL, "fat binary: the zstd PTX entry claims "
                   "%llu bytes, its header %llu", cap,
                   (unsigned long long)plain_bytes);
            return PTX_EINVAL;
        }
        if (cap == 0 || cap > PTX_TEXT_MAX_BYTES) {
            fb_err(err, PTX_EINVAL, "fat binary: bad PTX size %llu (at most "
                   "%u bytes)", cap, PTX_TEXT_MAX_BYTES);
            return PTX_EINVAL;
        }
        char *out = malloc((size_t)cap + 1);
        if (!out) {
            fb_err(err, PTX_ENOMEM, "out of memory");
            return PTX_ENOMEM;
        }
        size_t got = ZSTD_decompress(out, (size_t)cap, payload, in);
        if (ZSTD_isError(got)) {
            free(out);
            fb_err(err, PTX_EINVAL, "fat binary: zstd: %s",
                   ZSTD_getErrorName(got));
            return PTX_EINVAL;
        }
        out[got] = '\0';
        *text = out;
        *len = strnlen(out, got);
        return 0;
#else
        (void)compressed_bytes;
        (void)plain_bytes;
        fb_err(err, PTX_ECOMPRESS, "the fat binary's PTX is zstd-compressed "
               "and p2psim was built without libzstd; install libzstd-dev "
               "and reconfigure, or build the program with -no-compress");
        return PTX_ECOMPRESS;
#endif
    }
    size_t n = strnlen((const char *)payload, (size_t)payload_bytes);
    if (n > PTX_TEXT_MAX_BYTES) {
        fb_err(err, PTX_EINVAL, "fat binary: PTX text of %zu bytes (at most "
               "%u)", n, PTX_TEXT_MAX_BYTES);
        return PTX_EINVAL;
    }
    char *out = malloc(n + 1);
    if (!out) {
        fb_err(err, PTX_ENOMEM, "out of memory");
        return PTX_ENOMEM;
    }
    memcpy(out, payload, n);
    out[n] = '\0';
    *text = out;
    *len = n;
    return 0;
}

/* Whether a PTX entry of architecture a is a better pick than one of b
 * for a device of architecture dev (ptx.h, ptx_fatbin_extract): one not
 * above the device beats one above it; among those not above, the
 * higher; among those above (or with no device), the higher. */
static bool better_arch(unsigned a, unsigned b, unsigned dev)
{
    bool a_fits = dev && a <= dev, b_fits = dev && b <= dev;
    if (a_fits != b_fits) {
        return a_fits;
    }
    return a > b;
}

int ptx_fatbin_extract_data(const void *data, size_t size, unsigned arch,
                            char **text, size_t *len, struct ptx_error *err)
{
    const uint8_t *p = data;
    size_t dummy;
    if (!len) {
        len = &dummy;
    }
    if (!p || !text || size < 16 || ptx__rd32(p) != FATBIN_CONTAINER_MAGIC) {
        fb_err(err, PTX_EINVAL, "not a fat binary (container magic 0x%x, "
               "expected 0x%x)", p && size >= 4 ? ptx__rd32(p) : 0,
               FATBIN_CONTAINER_MAGIC);
        return PTX_EINVAL;
    }
    uint16_t hdr = ptx__rd16(p + 6);
    uint64_t total = ptx__rd64(p + 8);
    if (hdr < 16 || total > PTX_FATBIN_MAX_BYTES) {
        fb_err(err, PTX_EINVAL, "fat binary: bad container sizes (header "
               "%u bytes, entries %llu; a header has at least 16, the "
               "entries at most %llu)", hdr, (unsigned long long)total,
               (unsigned long long)PTX_FATBIN_MAX_BYTES);
        return PTX_EINVAL;
    }
    if (hdr > size || total > size - hdr) {
        fb_err(err, PTX_EINVAL, "fat binary: bad container sizes (header "
               "%u and entries %llu bytes, in %zu bytes)", hdr,
               (unsigned long long)total, size);
        return PTX_EINVAL;
    }
    const uint8_t *e = p + hdr, *end = p + hdr + total;
    const uint8_t *best = NULL;
    unsigned best_arch = 0, n_elf = 0, elf_arch = 0;
    while ((size_t)(end - e) >= FATBIN_ENTRY_MIN) {
        uint16_t kind = ptx__rd16(e);
        uint32_t ehdr = ptx__rd32(e + 4);
        uint64_t payload = ptx__rd64(e + 8);
        if (ehdr < FATBIN_ENTRY_MIN || ehdr > (size_t)(end - e) ||
            payload > (size_t)(end - e) - ehdr) {
            fb_err(err, PTX_EINVAL, "fat binary: entry at offset %zu has "
                   "bad sizes (header %u, payload %llu, %zu bytes left in "
                   "the container)", (size_t)(e - p), ehdr,
                   (unsigned long long)payload, (size_t)(end - e));
            return PTX_EINVAL;
        }
        unsigned a = ptx__rd32(e + 28);
        if (kind == FATBIN_KIND_PTX && (!best || better_arch(a, best_arch,
                                                             arch))) {
            best = e;
            best_arch = a;
        } else if (kind == FATBIN_KIND_ELF) {
            n_elf++;
            elf_arch = a;
        }
        e += ehdr + payload;
    }
    if (!best) {
        fb_err(err, PTX_ENOPTX, "the fat binary holds no PTX, only %u SASS "
               "image(s) (sm_%u); p2psim interprets PTX: build with a PTX "
               "target, e.g. -gencode arch=compute_90,code=compute_90, "
               "-arch=sm_90, or nvcc's default output",
               n_elf, elf_arch);
        return PTX_ENOPTX;
    }
    uint32_t ehdr = ptx__rd32(best + 4);
    return entry_text(best + ehdr, ptx__rd64(best + 8), ptx__rd32(best + 16),
                      ptx__rd64(best + 40), ehdr >= 64 ? ptx__rd64(best + 56) : 0,
                      text, len, err);
}

int ptx_fatbin_extract(const void *wrapper, unsigned arch, char **text,
                       size_t *len, struct ptx_error *err)
{
    const uint8_t *w = wrapper;
    if (!w || ptx__rd32(w) != FATBIN_WRAPPER_MAGIC) {
        fb_err(err, PTX_EINVAL, "not a fat binary wrapper (magic 0x%x, "
               "expected 0x%x)", w ? ptx__rd32(w) : 0, FATBIN_WRAPPER_MAGIC);
        return PTX_EINVAL;
    }
    const uint8_t *data;
    memcpy(&data, w + 8, sizeof(data));
    /* The registration gives no size: the container header's own sizes
     * bound the walk (its 16 bytes are read once the magic matched). */
    size_t bound = data ? 4 : 0;
    if (data && ptx__rd32(data) == FATBIN_CONTAINER_MAGIC) {
        uint16_t hdr = ptx__rd16(data + 6);
        uint64_t total = ptx__rd64(data + 8);
        bound = 16;
        if (hdr >= 16 && total <= PTX_FATBIN_MAX_BYTES) {
            bound = (size_t)hdr + (size_t)total;
        }
    }
    int rc = ptx_fatbin_extract_data(data, bound, arch, text, len, err);
    if (rc == PTX_ENOPTX && ptx__rd32(w + 4) == 2 && err) {
        /* -rdc=true: the PTX is in __nv_relfatbin, not registered */
        size_t n = strlen(err->msg);
        snprintf(err->msg + n, sizeof(err->msg) - n, "; this program was "
                 "built with -rdc=true, whose registered image has no PTX");
    }
    return rc;
}
