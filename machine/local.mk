# machine/: libp2psim, the machine library: machine description, YAML
# loader and builder, routes and paths, P2P verdicts, copies and kernels on
# a machine, the flow fidelity, the trace sink. Built on models/ and sim/
# (and libyaml, in the loader alone); machine/p2psim.h is its public face.
noinst_LTLIBRARIES += machine/libp2psim.la
machine_libp2psim_la_SOURCES = \
	%reldir%/exec.c \
	%reldir%/exec.h \
	%reldir%/storage.c \
	%reldir%/storage.h \
	%reldir%/fabric.c \
	%reldir%/fabric.h \
	%reldir%/flow.c \
	%reldir%/flow.h \
	%reldir%/flow_int.h \
	%reldir%/flow_plan.c \
	%reldir%/hbm_space.c \
	%reldir%/hbm_space.h \
	%reldir%/kinds.c \
	%reldir%/kinds.h \
	%reldir%/links.c \
	%reldir%/links.h \
	%reldir%/p2psim.c \
	%reldir%/p2psim_vm.c \
	%reldir%/p2psim.h \
	%reldir%/p2psim_int.h \
	%reldir%/path.c \
	%reldir%/pci_tree.c \
	%reldir%/path.h \
	%reldir%/route.c \
	%reldir%/route.h \
	%reldir%/topology.c \
	%reldir%/topology.h \
	%reldir%/topology_int.h \
	%reldir%/topology_kept.c \
	%reldir%/topology_gpu.c \
	%reldir%/topology_nvlink.c \
	%reldir%/topology_override.c \
	%reldir%/topology_pcie.c \
	%reldir%/topology_vm.c \
	%reldir%/topology_vms.c \
	%reldir%/topology_yaml.c \
	%reldir%/trace_sink.c \
	%reldir%/trace_sink.h
nodist_machine_libp2psim_la_SOURCES = %reldir%/topology_data.c
machine_libp2psim_la_CFLAGS = $(AM_CFLAGS) $(YAML_CFLAGS)
machine_libp2psim_la_LIBADD = models/libmodels.la sim/libsim.la \
	traces/libtraces.la common/libcommon.la $(YAML_LIBS) -lm
if HAVE_SYSTEMC
machine_libp2psim_la_LIBADD += sim/systemc/libsim_systemc.la $(SYSTEMC_LIBS)
endif
EXTRA_DIST += machine/.may_include

# The machine files and the GPU catalog, built into the library so that
# p2psim works without them installed; the default machine is one of them.
TOPO_DEFAULT = pcie-8gpu-2socket.yaml
topo_files = $(sort $(wildcard $(srcdir)/topologies/*.yaml) \
	$(wildcard $(srcdir)/topologies/gpus/*.yaml))
topo_names = $(patsubst $(srcdir)/topologies/%,%,$(topo_files))
%reldir%/topology_data.c: $(topo_files) $(srcdir)/tools/embed-data.sh Makefile
	$(AM_V_GEN)mkdir -p machine && $(SHELL) $(srcdir)/tools/embed-data.sh \
		$(srcdir) $(TOPO_DEFAULT) $(topo_names) > $@.tmp && mv $@.tmp $@
BUILT_SOURCES = %reldir%/topology_data.c
CLEANFILES += %reldir%/topology_data.c
EXTRA_DIST += $(topo_files) topologies/SCHEMA.md tools/embed-data.sh

# machine/kernel/: the kernel executor (C kernels and PTX kernels on the SMs
# of models/gpu/sm.c); part of libp2psim. docs/kernels.md. The device API
# of C kernels is machine/include/p2psim_kernel.h (installed with the CUDA
# headers, cuda/include/local.mk).
machine_libp2psim_la_SOURCES += \
	%reldir%/kernel/kernel.h \
	%reldir%/kernel/kernel_int.h \
	%reldir%/kernel/exec.c \
	%reldir%/kernel/cdp.c \
	%reldir%/kernel/memory.c \
	%reldir%/kernel/spin.c \
	%reldir%/kernel/heap.c \
	%reldir%/kernel/texture.h \
	%reldir%/kernel/texture.c \
	%reldir%/kernel/cthread.c
machine_libp2psim_la_LIBADD += ptx/libptx.la
