/* tests/cudart/check_stream.c - (being written) */
#include <config.h>

#include "tests/cudart/cudart_test.h"
