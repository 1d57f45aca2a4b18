/*
 * models/models.c - the explicit tables of every model kind. A new model
 * is added here, and nowhere else, to become available to the builder and
 * to machine files.
 */
#include <config.h>

#include "models/models.h"

#include <string.h>

#include "models/gpu/gpu.h"
#include "models/host/hostmem.h"
#include "models/host/socket_link.h"
#include "models/nvlink/nvlink.h"
#include "models/pcie/link.h"
#include "models/pcie/rc.h"
#include "models/pcie/switch.h"
#include "sim/component.h"
#include "sim/port.h"

const struct sim_component_ops *const models_components[] = {
    &rc_ops,
    &psw_ops,
    &gpu_ops,
    &hmem_ops,
    &nvsw_ops,
    NULL,
};

const struct sim_link_ops *const models_links[] = {
    &pcie_link_ops,
    &socket_link_ops,
    &nvl_link_ops,
    &sim_wire_ops,
    NULL,
};

const struct sim_component_ops *models_find_component(const char *kind)
{
    return sim_component_ops_find(models_components, kind);
}

const struct sim_link_ops *models_find_link(const char *kind)
{
    for (const struct sim_link_ops *const *l = models_links; *l; l++) {
        if (strcmp((*l)->kind, kind) == 0) {
            return *l;
        }
    }
    return NULL;
}
