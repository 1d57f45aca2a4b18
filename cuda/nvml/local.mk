# cuda/nvml/: p2psim's NVML, libnvidia-ml.so.1 (soname as NVIDIA's), which
# answers from the simulated machine through the runtime (libcudart.so.13)
# it links. Built and installed beside libcuda.so.1 (cuda/driver/.libs,
# $(pkglibdir)/driver), so that `p2psim run` finds it where it finds our
# driver, and `p2psim run --real` leaves both to NVIDIA.
drvlib_LTLIBRARIES += cuda/driver/libnvidia-ml.la
cuda_driver_libnvidia_ml_la_SOURCES = \
	%reldir%/nvml.h \
	%reldir%/nvml_int.h \
	%reldir%/nvml_device.c \
	%reldir%/nvml_link.c
nodist_cuda_driver_libnvidia_ml_la_SOURCES = cuda/nvml/unserved.c
cuda_driver_libnvidia_ml_la_LIBADD = cuda/cudart/libcudart.la -lpthread
# -version-info 1:0:0: libnvidia-ml.so.1, NVIDIA's soname.
cuda_driver_libnvidia_ml_la_LDFLAGS = -version-info 1:0:0 -no-undefined \
	-Wl,--version-script=$(srcdir)/cuda/nvml/libnvidia-ml.map
EXTRA_cuda_driver_libnvidia_ml_la_DEPENDENCIES = \
	$(srcdir)/cuda/nvml/libnvidia-ml.map
EXTRA_DIST += cuda/nvml/.may_include cuda/nvml/libnvidia-ml.map \
	cuda/nvml/libnvidia-ml.exports
CLEANFILES += cuda/nvml/unserved.c
BUILT_SOURCES += cuda/nvml/unserved.c

# The stubs of every export of NVIDIA's NVML that no source here defines.
cuda/nvml/unserved.c: $(srcdir)/cuda/driver/gen-unserved.awk \
		$(srcdir)/cuda/nvml/libnvidia-ml.exports \
		$(srcdir)/cuda/nvml/nvml_device.c \
		$(srcdir)/cuda/nvml/nvml_link.c
	@mkdir -p cuda/nvml
	$(AM_V_GEN)$(AWK) -v prefix=nvml -v 'type=(nvmlReturn_t |const char \\*)' \
		-v report=nvml_unserved -v "lib=NVIDIA's libnvidia-ml.so.1" \
		-v err=NVML_ERROR_NOT_SUPPORTED \
		-f $(srcdir)/cuda/driver/gen-unserved.awk \
		$(srcdir)/cuda/nvml/nvml_*.c \
		$(srcdir)/cuda/nvml/libnvidia-ml.exports > $@.tmp && mv $@.tmp $@
