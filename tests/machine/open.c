/*
 * tests/machine/open.c - test_open (open.h).
 */
#include <config.h>

#include "sim/error.h"
#include "tests/check_p2psim.h"
#include "tests/machine/open.h"

struct p2psim *test_open(const char *name, const struct p2psim_options *o)
{
    struct sim_error err;
    sim_error_clear(&err);
    struct p2psim *p = p2psim_open(name, o, &err);
    ck_assert_msg(p != NULL, "%s: %s", name ? name : "(default)", err.msg);
    return p;
}
