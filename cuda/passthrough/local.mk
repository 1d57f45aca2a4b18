# cuda/passthrough/: NVIDIA's CUDA runtime behind the shim
# (P2PSIM_BACKEND=cuda: finding it, loading it by full path, looking up
# its functions) and the API trace (P2PSIM_RECORD). Linked into
# libcudart.so.13 (cuda/cudart/local.mk); it knows nothing of the
# simulation.
noinst_LTLIBRARIES += cuda/passthrough/libpassthru.la
cuda_passthrough_libpassthru_la_SOURCES = \
	%reldir%/passthru.c \
	%reldir%/passthru.h \
	%reldir%/record.c
EXTRA_DIST += cuda/passthrough/.may_include
