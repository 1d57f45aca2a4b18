/*
 * fuzz/fuzz_overrides.c - libFuzzer harness of the --set overrides
 * (topologies/SCHEMA.md, "Overrides"; struct topo_options.overrides):
 * the first byte picks one of the built-in machine files, the rest is the
 * override text ("path=value" lines) applied to it before it loads.
 */
#include <config.h>

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "machine/topology.h"
#include "sim/error.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The built-in machine files (not the GPU catalog's gpus/ entries). */
static const struct topo_embedded *machines[64];
static unsigned n_machines;

static void find_machines(void)
{
    for (const struct topo_embedded *e = topo_embedded;
         e->path && n_machines < 64; e++) {
        if (strncmp(e->path, "gpus/", 5) != 0) {
            machines[n_machines++] = e;
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!n_machines) {
        find_machines();
    }
    if (size < 1 || !n_machines) {
        return 0;
    }
    const struct topo_embedded *e = machines[data[0] % n_machines];
    /* the overrides are a C string: a NUL in the input ends them */
    char *set = malloc(size);
    if (!set) {
        return 0;
    }
    memcpy(set, data + 1, size - 1);
    set[size - 1] = '\0';
    struct topo_options opt = {
        .gpu_dir = "p2psim-fuzz-no-such-dir",
        .overrides = set,
    };
    struct sim_error err;
    sim_error_clear(&err);
    struct topo_machine *m = topo_load_string(e->path, e->text,
                                              strlen(e->text), &opt, &err);
    topo_machine_destroy(m);
    free(set);
    return 0;
}
