/*
 * fuzz/fuzz_topology.c - libFuzzer harness of the machine-file loader
 * (machine/topology.h, topo_load_string): the input is a machine file's
 * text (topologies/SCHEMA.md). GPU catalog entries come from the built-in
 * catalog only (gpu_dir names a folder that does not exist), so no input
 * reads a file. A machine that loads is destroyed again.
 */
#include <config.h>

#include <stddef.h>
#include <stdint.h>

#include "machine/topology.h"
#include "sim/error.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct topo_options opt = { .gpu_dir = "p2psim-fuzz-no-such-dir" };
    struct sim_error err;
    sim_error_clear(&err);
    struct topo_machine *m = topo_load_string("fuzz.yaml", (const char *)data,
                                              size, &opt, &err);
    topo_machine_destroy(m);
    return 0;
}
