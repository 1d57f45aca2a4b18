# cuda/cudart/: the CUDA runtime shim, libcudart.so.13 (soname and version
# node as the real runtime), served by libp2psim. Installed into
# $(pkglibdir) so that it never shadows a real CUDA runtime on the library
# path; programs reach it through p2psim-cudart.pc (-rpath) or
# `p2psim run` (LD_LIBRARY_PATH).
#
# libcudart_error.la: the error model alone (names, last and sticky
# error), also linked by its unit tests.
noinst_LTLIBRARIES += cuda/cudart/libcudart_error.la
cuda_cudart_libcudart_error_la_SOURCES = \
	%reldir%/error.c \
	%reldir%/error.h

# libcudart_costs.la: a machine file's api-costs: (api_costs.h), which
# the command line (tools/p2psim.c) and its unit tests read as well.
noinst_LTLIBRARIES += cuda/cudart/libcudart_costs.la
cuda_cudart_libcudart_costs_la_SOURCES = \
	%reldir%/api_costs.c \
	%reldir%/api_costs.h

# libcudart_sim.la: the simulated runtime. Each of its sources is
# compiled with sim_names.h forced in (-include), so the CUDA functions it
# defines, and its calls to them, are named p2psim_sim_cudaX, which the
# version script keeps local. The exported cudaX are those of dispatch.c
# (libcudart.la below): they forward to these, or with
# P2PSIM_BACKEND=cuda to NVIDIA's runtime, and record the API trace
# (cuda/cudart/dispatch.h). A new source of the simulated runtime goes in
# this list.
noinst_LTLIBRARIES += cuda/cudart/libcudart_sim.la
cuda_cudart_libcudart_sim_la_SOURCES = \
	%reldir%/rt.c \
	%reldir%/errors.c \
	%reldir%/machine.c \
	%reldir%/remote.c \
	%reldir%/remote.h \
	%reldir%/remote_host.c \
	%reldir%/ipc.c \
	%reldir%/rt.h \
	%reldir%/stream.c \
	%reldir%/stream_int.h \
	%reldir%/stream_op.c \
	%reldir%/event.c \
	%reldir%/copy.c \
	%reldir%/memcpy2d.c \
	%reldir%/memcpy2d.h \
	%reldir%/symbol.c \
	%reldir%/device.c \
	%reldir%/device_props.c \
	%reldir%/peer.c \
	%reldir%/memory.c \
	%reldir%/memory.h \
	%reldir%/memory_int.h \
	%reldir%/memory_host.c \
	%reldir%/memory_pool.c \
	%reldir%/memset.c \
	%reldir%/managed.c \
	%reldir%/managed.h \
	%reldir%/launch.c \
	%reldir%/launch_int.h \
	%reldir%/launch_ex.c \
	%reldir%/registry.c \
	%reldir%/kernel_attr.c \
	%reldir%/graph.c \
	%reldir%/graph_int.h \
	%reldir%/graph_node.c \
	%reldir%/graph_exec.c \
	%reldir%/graph_cond.c \
	%reldir%/graph_capture.c \
	%reldir%/drv_bridge.c \
	%reldir%/drv_bridge.h \
	%reldir%/channel.c \
	%reldir%/array.c \
	%reldir%/texture.c \
	%reldir%/texture_int.h \
	%reldir%/config.c \
	%reldir%/relfatbin.c \
	%reldir%/relfatbin.h \
	%reldir%/stream_attr.c \
	%reldir%/rt_host.c
cuda_cudart_libcudart_sim_la_CPPFLAGS = $(AM_CPPFLAGS) \
	-include cuda/cudart/sim_names.h

# The generated sources: tools/gen-dispatch.sh writes sim_names.h,
# dispatch.c, unserved.c (and the tests' fake_cudart.c) into the build
# tree from the headers of cuda/include and cudart13.exports, again
# whenever one of them changes. A header of cuda/include that declares
# functions is read by the script (p2psim_rt_*.h are, by their name).
cudart_gen_inputs = $(srcdir)/tools/gen-dispatch.sh \
	$(srcdir)/cuda/cudart/cudart13.exports \
	$(srcdir)/cuda/include/cuda_runtime_api.h \
	$(srcdir)/cuda/include/cuda_profiler_api.h \
	$(srcdir)/cuda/include/p2psim_cudart_internal.h \
	$(wildcard $(srcdir)/cuda/include/p2psim_rt_*.h)
cudart_gen = cuda/cudart/sim_names.h cuda/cudart/dispatch.c \
	cuda/cudart/unserved.c tests/shim/fake_cudart.c
cuda/cudart/gen.stamp: $(cudart_gen_inputs)
	$(AM_V_GEN)$(SHELL) $(srcdir)/tools/gen-dispatch.sh $(srcdir) . && touch $@
$(cudart_gen): cuda/cudart/gen.stamp
	@test -f $@ || { rm -f cuda/cudart/gen.stamp; \
		$(MAKE) $(AM_MAKEFLAGS) cuda/cudart/gen.stamp; }
BUILT_SOURCES += cuda/cudart/sim_names.h
CLEANFILES += $(cudart_gen) cuda/cudart/gen.stamp
EXTRA_DIST += cuda/cudart/cudart13.exports

# libcudart.la: what programs load: dispatch.c (the exported functions
# our headers declare), unserved.c (the rest of NVIDIA's exports).
pkglib_LTLIBRARIES = cuda/cudart/libcudart.la
cuda_cudart_libcudart_la_SOURCES = \
	%reldir%/dispatch.h \
	%reldir%/dispatch_rt.c
nodist_cuda_cudart_libcudart_la_SOURCES = cuda/cudart/dispatch.c cuda/cudart/unserved.c cuda/cudart/sim_names.h
cuda_cudart_libcudart_la_LIBADD = cuda/cudart/libcudart_sim.la \
	cuda/passthrough/libpassthru.la cuda/cudart/libcudart_error.la \
	cuda/cudart/libcudart_costs.la machine/libp2psim.la -lpthread -lm
cuda_cudart_libcudart_la_LDFLAGS = -version-info 13:0:0 -no-undefined \
	-Wl,--version-script=$(srcdir)/cuda/cudart/libcudart.map
EXTRA_cuda_cudart_libcudart_la_DEPENDENCIES = $(srcdir)/cuda/cudart/libcudart.map
EXTRA_DIST += cuda/cudart/.may_include cuda/cudart/libcudart.map

# ---- packaging --------------------------------------------------------------
# p2psim-cudart.pc: `cc app.c $(pkg-config --cflags --libs p2psim-cudart)`
# compiles against our headers ($(pkgincludedir)/cuda, cuda/include/local.mk)
# and links the shim with a runpath to $(pkglibdir). The -uninstalled
# twin serves the same from the build tree (PKG_CONFIG_PATH=cuda/cudart);
# configure writes both.
pkgconfigdir = $(libdir)/pkgconfig
pkgconfig_DATA = cuda/cudart/p2psim-cudart.pc
EXTRA_DIST += cuda/cudart/p2psim-cudart.pc.in \
	cuda/cudart/p2psim-cudart-uninstalled.pc.in

# The libp2psim-cudart names: -lp2psim-cudart (and dlopen by that name)
# reach the shim without naming libcudart; the soname stays
# libcudart.so.13, so programs still record NEEDED libcudart.so.13.
cudart_aliases = libp2psim-cudart.so libp2psim-cudart.so.13
install-exec-hook: install-cudart-aliases
uninstall-hook: uninstall-cudart-aliases
install-cudart-aliases:
	@if test -f $(DESTDIR)$(pkglibdir)/libcudart.so.13; then \
		cd $(DESTDIR)$(pkglibdir) && for n in $(cudart_aliases); do \
			echo " $(LN_S) libcudart.so.13 $$n"; \
			rm -f $$n && $(LN_S) libcudart.so.13 $$n || exit 1; \
		done; \
	fi
uninstall-cudart-aliases:
	@for n in $(cudart_aliases); do \
		echo " rm -f $(DESTDIR)$(pkglibdir)/$$n"; \
		rm -f $(DESTDIR)$(pkglibdir)/$$n; \
	done
.PHONY: install-cudart-aliases uninstall-cudart-aliases
