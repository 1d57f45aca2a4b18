# cuda/driver/: p2psim's driver API, libcuda.so.1 (soname as CUDA's
# driver), served by the runtime (libcudart.so.13) it links: one state,
# one simulated machine. Installed into $(pkglibdir)/driver, a folder of
# its own, so that `p2psim run --real` can leave it off the library path
# (NVIDIA's runtime then loads NVIDIA's libcuda.so.1); `p2psim run` puts
# it first otherwise.
drvlibdir = $(pkglibdir)/driver
drvlib_LTLIBRARIES = cuda/driver/libcuda.la
cuda_driver_libcuda_la_SOURCES = \
	%reldir%/drv_int.h \
	%reldir%/drv_names.h \
	%reldir%/drv_unversioned.h \
	%reldir%/drv_device.c \
	%reldir%/drv_memory.c \
	%reldir%/drv_module.c \
	%reldir%/drv_link.c \
	%reldir%/drv_stream.c \
	%reldir%/drv_vmm.c \
	%reldir%/drv_legacy.c \
	%reldir%/drv_proc.c
nodist_cuda_driver_libcuda_la_SOURCES = cuda/driver/unserved.c
cuda_driver_libcuda_la_LIBADD = cuda/cudart/libcudart.la -lpthread
# -version-info 2:0:1: libcuda.so.1 (current - age = 1), CUDA's soname.
cuda_driver_libcuda_la_LDFLAGS = -version-info 2:0:1 -no-undefined \
	-Wl,--version-script=$(srcdir)/cuda/driver/libcuda.map
EXTRA_cuda_driver_libcuda_la_DEPENDENCIES = $(srcdir)/cuda/driver/libcuda.map

# libp2psim-nvrtc.so: NVRTC's cubin is its PTX (nvrtc_cubin.c), preloaded
# by `p2psim run` for programs that need libnvrtc.so.
drvlib_LTLIBRARIES += cuda/driver/libp2psim-nvrtc.la
cuda_driver_libp2psim_nvrtc_la_SOURCES = %reldir%/nvrtc_cubin.c
cuda_driver_libp2psim_nvrtc_la_LIBADD = -ldl
cuda_driver_libp2psim_nvrtc_la_LDFLAGS = -module -avoid-version \
	-no-undefined \
	-Wl,--version-script=$(srcdir)/cuda/driver/libp2psim-nvrtc.map
EXTRA_cuda_driver_libp2psim_nvrtc_la_DEPENDENCIES = \
	$(srcdir)/cuda/driver/libp2psim-nvrtc.map
EXTRA_DIST += cuda/driver/.may_include cuda/driver/libcuda.map \
	cuda/driver/libp2psim-nvrtc.map \
	cuda/driver/libcuda.exports cuda/driver/gen-unserved.awk
CLEANFILES += cuda/driver/unserved.c
BUILT_SOURCES += cuda/driver/unserved.c

# The stubs of every export of CUDA's driver that no source here defines.
cuda/driver/unserved.c: $(srcdir)/cuda/driver/gen-unserved.awk \
		$(srcdir)/cuda/driver/libcuda.exports \
		$(srcdir)/cuda/driver/drv_device.c \
		$(srcdir)/cuda/driver/drv_memory.c \
		$(srcdir)/cuda/driver/drv_module.c \
		$(srcdir)/cuda/driver/drv_link.c \
		$(srcdir)/cuda/driver/drv_stream.c \
		$(srcdir)/cuda/driver/drv_vmm.c \
		$(srcdir)/cuda/driver/drv_legacy.c \
		$(srcdir)/cuda/driver/drv_proc.c
	@mkdir -p cuda/driver
	$(AM_V_GEN)$(AWK) -f $(srcdir)/cuda/driver/gen-unserved.awk \
		$(srcdir)/cuda/driver/drv_*.c \
		$(srcdir)/cuda/driver/libcuda.exports > $@.tmp && mv $@.tmp $@
