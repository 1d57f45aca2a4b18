/*
 * models/models.c - the explicit table of every link kind. Component
 * kinds are listed once, with what each is to the machine, in
 * machine/kinds.c.
 */
#include <config.h>

#include "models/models.h"

#include <string.h>

#include "models/host/socket_link.h"
#include "models/nvlink/nvlink.h"
#include "models/pcie/link.h"
#include "sim/port.h"

const struct sim_link_ops *const models_links[] = {
    &pcie_link_ops,
    &socket_link_ops,
    &nvl_link_ops,
    &sim_wire_ops,
    NULL,
};

const struct sim_link_ops *models_find_link(const char *kind)
{
    for (const struct sim_link_ops *const *l = models_links; *l; l++) {
        if (strcmp((*l)->kind, kind) == 0) {
            return *l;
        }
    }
    return NULL;
}
