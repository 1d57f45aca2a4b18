/* tests/cudart/check_time.c - (being written) */
#include <config.h>

#include "tests/cudart/cudart_test.h"
