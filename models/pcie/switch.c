/* placeholder: being written */
#include <config.h>
