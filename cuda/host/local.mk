# cuda/host/: libp2psim-host.so, which `p2psim run` preloads into the
# program (not with --real): the program's clocks and sleeps are its
# threads' simulated ones, and its blocking outside CUDA is told to the
# runtime (host.c; the runtime's side is cuda/cudart/rt_host.c). Installed
# beside the runtime, in $(pkglibdir).
pkglib_LTLIBRARIES += cuda/host/libp2psim-host.la
cuda_host_libp2psim_host_la_SOURCES = %reldir%/host.c %reldir%/host_hooks.h
cuda_host_libp2psim_host_la_LIBADD = -ldl
# Never instrumented (no $(SAN_FLAGS), nor in LDFLAGS): `p2psim run`
# preloads it into programs that are not (a shell, a sample), where a
# sanitizer's runtime would refuse to start after it.
cuda_host_libp2psim_host_la_CFLAGS = -std=gnu11 $(WARN_CFLAGS)
cuda_host_libp2psim_host_la_LDFLAGS = -module -avoid-version -no-undefined \
	-Wl,--version-script=$(srcdir)/cuda/host/libp2psim-host.map
EXTRA_cuda_host_libp2psim_host_la_DEPENDENCIES = \
	$(srcdir)/cuda/host/libp2psim-host.map
EXTRA_DIST += cuda/host/.may_include cuda/host/libp2psim-host.map
