# cuda/include/: p2psim's own CUDA runtime headers (cuda_runtime.h and the
# headers it includes), so that programs using the CUDA runtime API build
# without the CUDA toolkit; the calls are served by the shim
# (libcudart.so.13). Installed in $(pkgincludedir)/cuda, where
# p2psim-cudart.pc points (-I), not in $(includedir), so that they never
# shadow the CUDA toolkit's. p2psim_cudart_internal.h is the shim's own:
# distributed, not installed. p2psim_kernel.h, the device API of kernels
# written in C, is the machine layer's (machine/include/), installed here
# beside the CUDA headers that such programs use too.
cudaincludedir = $(pkgincludedir)/cuda
cudainclude_HEADERS = \
	cuda/include/host_defines.h \
	cuda/include/vector_types.h \
	cuda/include/driver_types.h \
	cuda/include/driver_functions.h \
	cuda/include/cuda_runtime_api.h \
	cuda/include/cuda_runtime.h \
	cuda/include/cuda_profiler_api.h \
	cuda/include/cuda.h \
	cuda/include/p2psim_rt_graph.h \
	cuda/include/p2psim_rt_memcpy.h \
	cuda/include/p2psim_rt_texture.h \
	machine/include/p2psim_kernel.h
EXTRA_DIST += \
	cuda/include/.may_include \
	cuda/include/p2psim_cudart_internal.h

# tests/abi/: the headers against CUDA's binary interface.
#   compile.sh  programs compile against our headers alone (C11 and C++,
#               -Wall -Werror); needs only the compilers, runs everywhere.
#   abi.sh      sizes, offsets, values, signatures and symbol bindings
#               compared with the installed CUDA toolkit's headers; exits
#               77 (SKIP) when the toolkit is absent, as on CI.
# Both scripts build what they need themselves, with the compilers named
# in CC and CXX; the generated wrappers below hand them configure's
# $(CC) and $(CXX) and the source tree.
EXTRA_DIST += \
	tests/abi/abi.sh \
	tests/abi/abi_check.c \
	tests/abi/abi_rt_graph.inc \
	tests/abi/abi_rt_memcpy.inc \
	tests/abi/abi_rt_texture.inc \
	tests/abi/driver_abi.c \
	tests/abi/compile.sh \
	tests/abi/compile_samples.c \
	tests/abi/dwarf.awk \
	tests/abi/occupancy.cpp \
	tests/abi/overloads.cpp
TESTS += tests/abi/compile-run.sh tests/abi/abi-run.sh
CLEANFILES += tests/abi/compile-run.sh tests/abi/abi-run.sh
tests/abi/compile-run.sh tests/abi/abi-run.sh: Makefile
	@mkdir -p tests/abi
	@printf '#!/bin/sh\nCC="%s" CXX="%s" top_srcdir="%s" exec $(SHELL) "%s/tests/abi/%s.sh"\n' \
		'$(CC)' '$(CXX)' '$(abs_top_srcdir)' '$(abs_top_srcdir)' \
		`basename $@ -run.sh` > $@
	@chmod +x $@
