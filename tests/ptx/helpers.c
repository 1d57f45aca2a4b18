/*
 * tests/ptx/helpers.c - see ptx_test.h.
 */
#include <config.h>

#include "tests/check_p2psim.h"
#include "tests/ptx/ptx_test.h"

#include <stdio.h>
#include <stdlib.h>

char *ptx_test_slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        return NULL;
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *buf = malloc((size_t)n + 1);
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    if (buf) {
        buf[n] = '\0';
        if (len) {
            *len = (size_t)n;
        }
    }
    return buf;
}

struct ptx_module *ptx_test_module(const char *name)
{
    char path[1024];
    size_t len;
    snprintf(path, sizeof(path), "%s/tests/ptx/%s", P2PSIM_SRCDIR, name);
    char *text = ptx_test_slurp(path, &len);
    ck_assert_msg(text != NULL, "cannot read %s", path);
    struct ptx_error err = {0};
    struct ptx_module *m = ptx_module_parse(text, len, &err);
    free(text);
    ck_assert_msg(m != NULL, "%s: %s", name, err.msg);
    return m;
}

int ptx_test_run(const struct ptx_module *m, const char *name,
                 unsigned grid, unsigned block, void *const *args,
                 struct ptx_error *err)
{
    return ptx_test_run_vars(m, name, grid, block, args, NULL, err);
}

int ptx_test_run_vars(const struct ptx_module *m, const char *name,
                      unsigned grid, unsigned block, void *const *args,
                      const uint64_t *var_addrs, struct ptx_error *err)
{
    const struct ptx_kernel *k = ptx_module_find(m, name);
    ck_assert_msg(k != NULL, "no kernel %s", name);
    struct ptx_flat_launch l = {
        .kernel = k,
        .grid = {grid, 1, 1},
        .block = {block, 1, 1},
        .args = args,
        .var_addrs = var_addrs,
        .n_var_addrs = var_addrs ? ptx_module_var_count(m) : 0,
    };
    return ptx_flat_run(&l, NULL, err);
}
