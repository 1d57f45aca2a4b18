/*
 * machine/flow.h - the flow fidelity of libp2psim (p2psim_set_fidelity
 * "flow"): each copy-engine operation that exec.c would hand to the GPU
 * model (gpu_dma_submit) is simulated as one flow over the links and
 * shared resources its TLPs would cross, instead of TLP by TLP. Internal
 * to the rest of machine/ (p2psim__ names); see flow.c for the model.
 */
#ifndef P2PSIM_MACHINE_FLOW_H
#define P2PSIM_MACHINE_FLOW_H

struct gpu_dma;
struct p2psim;
struct p2psim_flow;

/* The engine of machine p; NULL when out of memory. */
struct p2psim_flow *p2psim__flow_create(struct p2psim *p);
/* Cancels what is in flight (no callbacks) and frees the engine. */
void p2psim__flow_destroy(struct p2psim_flow *f);

/*
 * p2psim__flow_submit - what gpu_dma_submit does, as a flow: queue op on
 * copy engine op->ce of GPU gpu; op->done(op) is called from inside the
 * simulation when the data is in place (moved then, at once). Fills the
 * op's result fields as the GPU model does. Returns 0, -SIM_EINVAL (bad
 * engine, range outside HBM, zero length) or -SIM_ENOTCONN.
 */
int p2psim__flow_submit(struct p2psim_flow *f, unsigned gpu,
                        struct gpu_dma *op);

#endif /* P2PSIM_MACHINE_FLOW_H */
