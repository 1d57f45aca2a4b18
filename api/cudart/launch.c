/* api/cudart/launch.c - (being written) */
#include <config.h>

#include "api/cudart/rt.h"
