/*
 * tests/machine/open.h - the machine suites' way to open a machine: a
 * library name, a file or NULL (the default machine), with options or
 * NULL; a refusal fails the test with the library's message.
 */
#ifndef P2PSIM_TESTS_MACHINE_OPEN_H
#define P2PSIM_TESTS_MACHINE_OPEN_H

#include "machine/p2psim.h"

struct p2psim *test_open(const char *name, const struct p2psim_options *o);

#endif
