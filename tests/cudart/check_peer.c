/* tests/cudart/check_peer.c - (being written) */
#include <config.h>

#include "tests/cudart/cudart_test.h"
