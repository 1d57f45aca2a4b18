/* tests/cudart/check_managed.c - (being written) */
#include <config.h>

#include "tests/cudart/cudart_test.h"
