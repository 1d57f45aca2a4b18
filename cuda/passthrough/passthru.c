/*
 * cuda/passthrough/passthru.c - finding, loading and calling into NVIDIA's
 * CUDA runtime for P2PSIM_BACKEND=cuda (passthru.h has the contract).
 *
 * The real runtime is opened by full path with RTLD_LOCAL, so it is a
 * separate object from the shim even though both carry the soname
 * libcudart.so.13 (reference/cuda-api.md §3.3), and its symbols never
 * enter the global scope where the program's references are bound to the
 * shim. NVIDIA's library is linked with DT_SYMBOLIC, so its internal calls
 * stay inside it. It dlopens libcuda.so.1 itself; without a driver it
 * answers cudaErrorInsufficientDriver (35), which comes back unchanged.
 *
 * Model: none. This file only forwards; the real runtime keeps its own
 * state (devices, last error, streams) and the simulated runtime is never
 * started in a process that uses it.
 */
#define _GNU_SOURCE /* dladdr, memmem */
#include <config.h>

#include "cuda/passthrough/passthru.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define PASSTHRU_SONAME "libcudart.so.13"
/* What every copy of p2psim's runtime contains and NVIDIA's does not. */
#define PASSTHRU_SHIM_MARK "P2PSIM_BACKEND"
/* A slot's value once the function is known to be missing. */
#define PASSTHRU_MISSING ((void *)1)

static pthread_once_t backend_once = PTHREAD_ONCE_INIT;
static bool backend_real;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static void *real_lib;
static char real_path[PATH_MAX];

/* ---- the backend ---------------------------------------------------------- */

static void backend_read(void)
{
    const char *b = getenv("P2PSIM_BACKEND");
    if (!b || !*b || strcmp(b, "sim") == 0) {
        backend_real = false;
    } else if (strcmp(b, "cuda") == 0 || strcmp(b, "real") == 0) {
        backend_real = true;
    } else {
        fprintf(stderr, "p2psim: P2PSIM_BACKEND=%s is not a backend (sim, "
                        "cuda): using the simulated runtime\n", b);
        backend_real = false;
    }
}

bool passthru_backend_is_real(void)
{
    pthread_once(&backend_once, backend_read);
    return backend_real;
}

/* ---- finding the runtime --------------------------------------------------- */

/* Whether the file holds the bytes of mark (mapped, read-only). */
static bool file_contains(const char *path, const char *mark)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return false;
    }
    struct stat st;
    bool found = false;
    if (fstat(fd, &st) == 0 && st.st_size > 0) {
        void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd,
                       0);
        if (m != MAP_FAILED) {
            found = memmem(m, (size_t)st.st_size, mark, strlen(mark)) != NULL;
            munmap(m, (size_t)st.st_size);
        }
    }
    close(fd);
    return found;
}

/*
 * Whether path may be the real runtime: a readable regular file that is
 * neither this shim (same device and inode as the file we were loaded
 * from, symlinks followed) nor another copy of p2psim's runtime. why gets
 * the reason when not.
 */
static bool candidate_ok(const char *path, char *why, size_t size)
{
    struct stat st, self;
    if (stat(path, &st) != 0) {
        snprintf(why, size, "%s: %s", path, strerror(errno));
        return false;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(why, size, "%s is not a file", path);
        return false;
    }
    Dl_info info;
    if (dladdr((void *)passthru_resolve, &info) && info.dli_fname &&
        stat(info.dli_fname, &self) == 0 && self.st_dev == st.st_dev &&
        self.st_ino == st.st_ino) {
        snprintf(why, size, "%s is p2psim's own runtime", path);
        return false;
    }
    if (file_contains(path, PASSTHRU_SHIM_MARK)) {
        snprintf(why, size, "%s is a copy of p2psim's runtime, not "
                            "NVIDIA's", path);
        return false;
    }
    return true;
}

/* Open path if it is a usable runtime; why gets the reason when not. */
static bool try_open(const char *path, char *why, size_t size)
{
    if (!candidate_ok(path, why, size)) {
        return false;
    }
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(why, size, "%s", dlerror());
        return false;
    }
    real_lib = h;
    snprintf(real_path, sizeof(real_path), "%s", path);
    return true;
}

/*
 * Try the libcudart.so.13* files of one folder (dir may hold a glob
 * pattern, /usr/local/cuda-13*): the plain soname first, then the
 * versioned names from the highest version down.
 */
static bool try_dir(const char *dir, char *why, size_t size)
{
    char pattern[PATH_MAX];
    if (snprintf(pattern, sizeof(pattern), "%s/" PASSTHRU_SONAME "*", dir) >=
        (int)sizeof(pattern)) {
        return false;
    }
    glob_t g;
    if (glob(pattern, 0, NULL, &g) != 0) {
        return false;
    }
    bool ok = false;
    for (size_t i = 0; i < g.gl_pathc && !ok; i++) {
        const char *base = strrchr(g.gl_pathv[i], '/');
        if (base && strcmp(base + 1, PASSTHRU_SONAME) == 0) {
            ok = try_open(g.gl_pathv[i], why, size);
        }
    }
    for (size_t i = g.gl_pathc; i > 0 && !ok; i--) {
        const char *base = strrchr(g.gl_pathv[i - 1], '/');
        if (base && strcmp(base + 1, PASSTHRU_SONAME) != 0) {
            ok = try_open(g.gl_pathv[i - 1], why, size);
        }
    }
    globfree(&g);
    return ok;
}

/* Under an installation prefix (a CUDA toolkit). */
static bool try_prefix(const char *prefix, char *why, size_t size)
{
    static const char *const sub[] = {
        "lib64", "targets/x86_64-linux/lib", "targets/sbsa-linux/lib", "lib",
    };
    for (size_t i = 0; i < sizeof(sub) / sizeof(sub[0]); i++) {
        char dir[PATH_MAX];
        snprintf(dir, sizeof(dir), "%s/%s", prefix, sub[i]);
        if (try_dir(dir, why, size)) {
            return true;
        }
    }
    return false;
}

static bool search(char *why, size_t size)
{
    static const char *const env_prefixes[] = { "CUDA_HOME", "CUDA_PATH" };
    static const char *const prefixes[] = {
        "/usr/local/cuda", "/usr/local/cuda-13*", "/opt/cuda",
    };
    static const char *const dirs[] = {
        "/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu",
        "/usr/lib64", "/usr/lib", "/lib/x86_64-linux-gnu", "/lib64",
    };
    for (size_t i = 0; i < 2; i++) {
        const char *p = getenv(env_prefixes[i]);
        if (p && *p && try_prefix(p, why, size)) {
            return true;
        }
    }
    for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
        if (try_prefix(prefixes[i], why, size)) {
            return true;
        }
    }
    for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
        if (try_dir(dirs[i], why, size)) {
            return true;
        }
    }
    return false;
}

static void load(void)
{
    char why[PATH_MAX + 200] = "";
    const char *want = getenv("P2PSIM_REAL_CUDART");
    if (want && *want) {
        struct stat st;
        bool ok = stat(want, &st) == 0 && S_ISDIR(st.st_mode)
                      ? try_dir(want, why, sizeof(why))
                      : try_open(want, why, sizeof(why));
        if (!ok) {
            fprintf(stderr, "p2psim: P2PSIM_REAL_CUDART=%s: cannot load "
                            "NVIDIA's CUDA runtime%s%s; every call returns "
                            "cudaErrorNotSupported\n",
                    want, *why ? ": " : " (no " PASSTHRU_SONAME " there)",
                    why);
        }
        return;
    }
    if (!search(why, sizeof(why))) {
        fprintf(stderr, "p2psim: P2PSIM_BACKEND=cuda: cannot find NVIDIA's "
                        "CUDA runtime (%s) in $CUDA_HOME, /usr/local/cuda, "
                        "/usr/local/cuda-13*, /opt/cuda or the system's "
                        "library folders; set P2PSIM_REAL_CUDART to its "
                        "path. Every call returns cudaErrorNotSupported%s%s\n",
                PASSTHRU_SONAME, *why ? ". Last refused: " : "", why);
    }
}

const char *passthru_real_path(void)
{
    pthread_once(&load_once, load);
    return real_lib ? real_path : NULL;
}

void *passthru_resolve(const char *name, void **slot)
{
    void *fn = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
    if (fn) {
        return fn == PASSTHRU_MISSING ? NULL : fn;
    }
    pthread_once(&load_once, load);
    if (real_lib) {
        fn = dlsym(real_lib, name);
        if (!fn) {
            fprintf(stderr, "p2psim: %s has no %s: the call returns "
                            "cudaErrorNotSupported\n", real_path, name);
        }
    }
    __atomic_store_n(slot, fn ? fn : PASSTHRU_MISSING, __ATOMIC_RELEASE);
    return fn;
}
