/* tests/cudart/check_device.c - (being written) */
#include <config.h>

#include "tests/cudart/cudart_test.h"
