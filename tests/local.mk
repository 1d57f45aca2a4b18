# tests/: Check suites, one runner per layer; each runner links only its
# layer's libraries, so an upward call fails to link.
if HAVE_CHECK
check_PROGRAMS += tests/check_sim
TESTS += tests/check_sim
tests_check_sim_SOURCES = \
	%reldir%/check_p2psim.h \
	%reldir%/check_sim.c \
	%reldir%/sim/check_event.c \
	%reldir%/sim/check_port.c \
	%reldir%/sim/check_props.c \
	%reldir%/sim/check_queue.c \
	%reldir%/sim/check_stats.c \
	%reldir%/sim/check_tlp.c
tests_check_sim_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_check_sim_LDADD = sim/libsim.la $(CHECK_LIBS)

check_PROGRAMS += tests/check_models
TESTS += tests/check_models
tests_check_models_SOURCES = \
	%reldir%/check_p2psim.h \
	%reldir%/check_models.c \
	%reldir%/models/harness.c \
	%reldir%/models/harness.h \
	%reldir%/models/check_fabric.c \
	%reldir%/models/check_egress.c \
	%reldir%/models/check_gpu.c \
	%reldir%/models/check_hostmem.c \
	%reldir%/models/check_iommu.c \
	%reldir%/models/check_pcie_link.c \
	%reldir%/models/check_psw.c \
	%reldir%/models/check_rc.c \
	%reldir%/models/check_sparse.c \
	%reldir%/models/check_topology.c
tests_check_models_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) \
	-DP2PSIM_SRCDIR='"$(abs_top_srcdir)"'
EXTRA_DIST += tests/topologies
tests_check_models_LDADD = models/libmodels.la sim/libsim.la $(CHECK_LIBS)

check_PROGRAMS += tests/check_api
TESTS += tests/check_api
tests_check_api_SOURCES = \
	%reldir%/check_p2psim.h \
	%reldir%/check_api.c \
	%reldir%/api/check_cudart_error.c \
	%reldir%/api/check_exec.c
tests_check_api_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) \
	-DP2PSIM_SRCDIR='"$(abs_top_srcdir)"'
tests_check_api_LDADD = api/libp2psim.la api/cudart/libcudart_error.la \
	$(CHECK_LIBS) -lpthread
if HAVE_SYSTEMC
nodist_EXTRA_tests_check_api_SOURCES = dummy.cxx
endif

# The CUDA shim, called as programs call it: one suite per file of
# api/cudart/, the error-path suite, each test in its own process.
check_PROGRAMS += tests/check_cudart
TESTS += tests/check_cudart
tests_check_cudart_SOURCES = \
	%reldir%/check_cudart.c \
	%reldir%/cudart/cudart_test.h \
	%reldir%/cudart/check_device.c \
	%reldir%/cudart/check_peer.c \
	%reldir%/cudart/check_memory.c \
	%reldir%/cudart/check_managed.c \
	%reldir%/cudart/check_stream.c \
	%reldir%/cudart/check_copy.c \
	%reldir%/cudart/check_time.c \
	%reldir%/cudart/check_launch.c \
	%reldir%/cudart/check_errors.c
tests_check_cudart_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) \
	-DP2PSIM_SRCDIR='"$(abs_top_srcdir)"'
tests_check_cudart_LDADD = api/cudart/libcudart.la $(CHECK_LIBS) -lpthread

# The sim/ suites under valgrind: no leak, no invalid access.
TESTS += tests/valgrind-sim.sh
CLEANFILES += tests/valgrind-sim.sh
tests/valgrind-sim.sh: Makefile
	@mkdir -p tests
	@printf '#!/bin/sh\nSAN_BUILD=%s exec $(SHELL) $(abs_top_srcdir)/tests/valgrind.sh ./tests/check_sim\n' \
		"$(enable_sanitizers)" > $@
	@chmod +x $@
endif

TESTS += tools/check-includes.sh tests/cli.sh
EXTRA_DIST += tests/cli.sh
TESTS_ENVIRONMENT = top_srcdir=$(top_srcdir); export top_srcdir; \
	P2PSIM=$(abs_top_builddir)/tools/p2psim; export P2PSIM;
EXTRA_DIST += tests/valgrind.sh
