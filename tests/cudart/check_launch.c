/* tests/cudart/check_launch.c - (being written) */
#include <config.h>

#include "tests/cudart/cudart_test.h"
