# models/: one folder per family, one file per model; depends on sim/ only
# (and libyaml, in the topology loader alone).
noinst_LTLIBRARIES += models/libmodels.la
models_libmodels_la_SOURCES = \
	%reldir%/fabric.c \
	%reldir%/fabric.h \
	%reldir%/models.c \
	%reldir%/path.c \
	%reldir%/path.h \
	%reldir%/route.c \
	%reldir%/route.h \
	%reldir%/models.h \
	%reldir%/gpu/bar1.c \
	%reldir%/gpu/copy_engine.c \
	%reldir%/gpu/gpu.c \
	%reldir%/gpu/gpu.h \
	%reldir%/gpu/gpu_info.c \
	%reldir%/gpu/gpu_int.h \
	%reldir%/gpu/l2.c \
	%reldir%/gpu/nvlink_port.c \
	%reldir%/gpu/sm.c \
	%reldir%/gpu/sm.h \
	%reldir%/host/hostmem.c \
	%reldir%/host/hostmem.h \
	%reldir%/host/socket_link.c \
	%reldir%/host/socket_link.h \
	%reldir%/iommu/atc.c \
	%reldir%/iommu/iommu.c \
	%reldir%/iommu/iommu.h \
	%reldir%/nvlink/nvlink.c \
	%reldir%/nvlink/nvlink.h \
	%reldir%/nvlink/nvswitch.c \
	%reldir%/nvlink/power.c \
	%reldir%/nvlink/power.h \
	%reldir%/mem/sparse.c \
	%reldir%/mem/sparse.h \
	%reldir%/pcie/acs.c \
	%reldir%/pcie/acs.h \
	%reldir%/pcie/egress.c \
	%reldir%/pcie/egress.h \
	%reldir%/pcie/link.c \
	%reldir%/pcie/link.h \
	%reldir%/pcie/pcie.c \
	%reldir%/pcie/pcie.h \
	%reldir%/pcie/pcie_regs.h \
	%reldir%/pcie/rc.c \
	%reldir%/pcie/rc.h \
	%reldir%/pcie/switch.c \
	%reldir%/pcie/switch.h \
	%reldir%/topology.c \
	%reldir%/topology.h \
	%reldir%/topology_int.h \
	%reldir%/topology_override.c \
	%reldir%/topology_yaml.c
nodist_models_libmodels_la_SOURCES = %reldir%/topology_data.c
models_libmodels_la_CFLAGS = $(AM_CFLAGS) $(YAML_CFLAGS)
models_libmodels_la_LIBADD = $(YAML_LIBS)

# The machine files and the GPU catalog, built into the library so that
# p2psim works without them installed; the default machine is one of them.
TOPO_DEFAULT = pcie-8gpu-2socket.yaml
topo_files = $(sort $(wildcard $(srcdir)/topologies/*.yaml) \
	$(wildcard $(srcdir)/topologies/gpus/*.yaml))
topo_names = $(patsubst $(srcdir)/topologies/%,%,$(topo_files))
%reldir%/topology_data.c: $(topo_files) $(srcdir)/tools/embed-data.sh Makefile
	$(AM_V_GEN)mkdir -p models && $(SHELL) $(srcdir)/tools/embed-data.sh \
		$(srcdir) $(TOPO_DEFAULT) $(topo_names) > $@.tmp && mv $@.tmp $@
BUILT_SOURCES = %reldir%/topology_data.c
CLEANFILES += %reldir%/topology_data.c
EXTRA_DIST += $(topo_files) topologies/SCHEMA.md tools/embed-data.sh
EXTRA_DIST += models/.may_include
