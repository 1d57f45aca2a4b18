/* tests/cudart/check_memory.c - (being written) */
#include <config.h>

#include "tests/cudart/cudart_test.h"
