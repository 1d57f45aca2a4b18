/* tests/cudart/check_errors.c - (being written) */
#include <config.h>

#include "tests/cudart/cudart_test.h"
