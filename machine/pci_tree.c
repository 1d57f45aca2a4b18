/*
 * machine/pci_tree.c - the PCIe tree of a built machine as software
 * enumerates it (machine/p2psim.h, p2psim_pci_tree): from every GPU up
 * to its root complex (path_chain_up), each switch once, parents first;
 * and the sockets above the trees.
 */
#include <config.h>

#include "machine/p2psim.h"
#include "machine/p2psim_int.h"

#include <stdbool.h>

#include "machine/fabric.h"
#include "machine/path.h"
#include "machine/topology.h"
#include "models/pcie/link.h"
#include "models/pcie/rc.h"
#include "models/pcie/switch.h"
#include "sim/component.h"
#include "sim/port.h"

/* The negotiated generation and width of the link on c's port name. */
static void link_of(const struct sim_component *c, const char *name,
                    unsigned *gen, unsigned *width)
{
    const struct sim_port *port = sim_port_find(c, name);
    *gen = *width = 0;
    if (port && port->link && port->link->ops == &pcie_link_ops) {
        *gen = pcie_link_gen(port->link);
        *width = pcie_link_width(port->link);
    }
}

/* The socket whose root complex rc is, and the NUMA node of its root
 * port `port` (nodes numbered socket by socket, a socket's in the order
 * of its `numa` groups). */
static unsigned socket_index(const struct topo_machine *m,
                             const struct sim_component *rc, unsigned port,
                             unsigned *numa)
{
    unsigned node = 0;
    for (unsigned i = 0; i < m->n_sockets; i++) {
        const struct topo_socket *t = &m->socket[i];
        if (t->rc == rc) {
            *numa = node + (port < t->n_ports ? t->node[port] : 0);
            return i;
        }
        node += t->n_nodes;
    }
    *numa = 0;
    return 0;
}

/* Add switch sw (below parent, on socket s) unless listed: its index. */
static int add_switch(const struct sim_component **comp, unsigned *n,
                      struct p2psim_pci_node *out, unsigned max,
                      const struct sim_component *sw, int parent,
                      const struct p2psim_pci_node *at)
{
    for (unsigned i = 0; i < *n; i++) {
        if (comp[i] == sw) {
            return (int)i;
        }
    }
    if (*n < max) {
        struct p2psim_pci_node *o = &out[*n];
        *o = (struct p2psim_pci_node){ .id = sw->name, .parent = parent,
                                       .socket = at->socket,
                                       .numa = at->numa, .gpu = -1,
                                       .bus = psw_bus(sw) };
        link_of(sw, "up", &o->gen, &o->width);
    }
    comp[*n] = sw;
    return (int)(*n)++;
}

unsigned p2psim_pci_tree(const struct p2psim *p, struct p2psim_pci_node *out,
                         unsigned max)
{
    unsigned n_gpu = p2psim_gpu_count(p), n = 0;
    /* every switch and GPU is at most once in the list */
    const struct sim_component *comp[512];
    for (unsigned g = 0; g < n_gpu && n < sizeof(comp) / sizeof(comp[0]);
         g++) {
        const struct sim_component *gc = fab_gpu(p->m->fab, g);
        struct path_up up[PATH_MAX_HOPS];
        int k = path_chain_up(gc, up, PATH_MAX_HOPS);
        if (k == 0) {
            continue;           /* no PCIe: not in the tree */
        }
        struct p2psim_pci_node at = { .gpu = (int)g };
        at.socket = socket_index(p->m, up[k - 1].comp, up[k - 1].port->index,
                                 &at.numa);
        int parent = -1;
        for (int i = k - 2; i >= 0 &&
                            n < sizeof(comp) / sizeof(comp[0]) - 1; i--) {
            parent = add_switch(comp, &n, out, max, up[i].comp, parent, &at);
        }
        if (n < max) {
            struct p2psim_pci_node *o = &out[n];
            *o = at;
            o->id = gc->name;
            o->parent = parent;
            p2psim_gpu_pci_address(p, g, &o->domain, &o->bus, &o->device,
                                   &o->function);
            p2psim_gpu_link(p, g, &o->gen, &o->width);
        }
        comp[n++] = gc;
    }
    return n;
}

unsigned p2psim_socket_count(const struct p2psim *p)
{
    return p->m->n_sockets;
}

const char *p2psim_socket_id(const struct p2psim *p, unsigned i)
{
    return i < p->m->n_sockets ? p->m->socket[i].id : NULL;
}

const char *p2psim_socket_cpu(const struct p2psim *p, unsigned i)
{
    return i < p->m->n_sockets ? p->m->socket[i].cpu : NULL;
}
