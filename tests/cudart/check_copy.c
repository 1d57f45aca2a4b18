/* tests/cudart/check_copy.c - (being written) */
#include <config.h>

#include "tests/cudart/cudart_test.h"
