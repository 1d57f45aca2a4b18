/*
 * tools/nccl_xml.h - the machine as NCCL's XML topology file
 * (NCCL_TOPO_FILE): `p2psim topo --nccl-xml` writes it, and `p2psim run`
 * hands one to the program unless NCCL_TOPO_FILE is set.
 */
#ifndef P2PSIM_TOOLS_NCCL_XML_H
#define P2PSIM_TOOLS_NCCL_XML_H

#include <stdio.h>

struct p2psim;

/* Write machine p's topology into f: 0, or -1 (out of memory or a write
 * error). */
int nccl_xml_write(const struct p2psim *p, FILE *f);

#endif /* P2PSIM_TOOLS_NCCL_XML_H */
