# models/: one folder per family, one file per model; depends on sim/ only.
noinst_LTLIBRARIES += models/libmodels.la
models_libmodels_la_SOURCES = \
	%reldir%/models.c \
	%reldir%/models.h \
	%reldir%/gpu/bar1.c \
	%reldir%/gpu/completer.c \
	%reldir%/gpu/copy_engine.c \
	%reldir%/gpu/gpu.c \
	%reldir%/gpu/gpu.h \
	%reldir%/gpu/gpu_info.c \
	%reldir%/gpu/gpu_int.h \
	%reldir%/gpu/l2.c \
	%reldir%/gpu/nvlink_port.c \
	%reldir%/gpu/sm.c \
	%reldir%/gpu/sm.h \
	%reldir%/gpu/sm_int.h \
	%reldir%/gpu/sm_wc.c \
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
	%reldir%/nvme/nvme.c \
	%reldir%/nvme/nvme.h \
	%reldir%/mem/sparse.c \
	%reldir%/mem/sparse.h \
	%reldir%/pcie/acs.c \
	%reldir%/pcie/acs.h \
	%reldir%/pcie/atomicop.c \
	%reldir%/pcie/atomicop.h \
	%reldir%/pcie/egress.c \
	%reldir%/pcie/egress.h \
	%reldir%/pcie/link.c \
	%reldir%/pcie/link.h \
	%reldir%/pcie/link_fc.c \
	%reldir%/pcie/link_int.h \
	%reldir%/pcie/link_replay.c \
	%reldir%/pcie/pcie.c \
	%reldir%/pcie/pcie.h \
	%reldir%/pcie/pcie_regs.h \
	%reldir%/pcie/rc.c \
	%reldir%/pcie/rc.h \
	%reldir%/pcie/rc_decide.c \
	%reldir%/pcie/rc_int.h \
	%reldir%/pcie/switch.c \
	%reldir%/pcie/switch.h

EXTRA_DIST += models/.may_include
