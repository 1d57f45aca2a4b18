/* api/cudart/memory.c - (being written) */
#include <config.h>

#include "api/cudart/rt.h"
