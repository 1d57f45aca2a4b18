# tests/nccl/: NVIDIA's NCCL and nccl-tests (../shared/clients, or
# $P2PSIM_CLIENTS) unpacked into the build tree and built unpatched by
# their makefiles, kernels as PTX, the shared runtime (build.sh, cached),
# then run through `p2psim run` (run.sh; docs/nccl.md). Not part of make
# check: the first build takes most of an hour here. make check-nccl
# builds (nccl-build) and runs them; both say "skipped" and succeed
# without nvcc or the tarballs.
EXTRA_DIST += tests/nccl/build.sh tests/nccl/run.sh
nccl-build:
	@$(TESTS_ENVIRONMENT) rc=0; \
	$(SHELL) $(top_srcdir)/tests/nccl/build.sh || rc=$$?; \
	test $$rc = 0 || test $$rc = 77
check-nccl: all
	@$(TESTS_ENVIRONMENT) rc=0; \
	$(SHELL) $(top_srcdir)/tests/nccl/run.sh || rc=$$?; \
	test $$rc = 0 || test $$rc = 77
.PHONY: nccl-build check-nccl
