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

check_PROGRAMS += tests/check_common
TESTS += tests/check_common
tests_check_common_SOURCES = \
	%reldir%/check_p2psim.h \
	%reldir%/check_common.c \
	%reldir%/common/check_atomic.c \
	%reldir%/common/check_fdio.c \
	%reldir%/common/check_realclock.c
tests_check_common_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_check_common_LDADD = common/libcommon.la $(CHECK_LIBS) -lpthread

check_PROGRAMS += tests/check_models
TESTS += tests/check_models
tests_check_models_SOURCES = \
	%reldir%/check_p2psim.h \
	%reldir%/check_models.c \
	%reldir%/models/harness.c \
	%reldir%/models/harness.h \
	%reldir%/models/check_egress.c \
	%reldir%/models/check_gpu.c \
	%reldir%/models/check_hostmem.c \
	%reldir%/models/check_iommu.c \
	%reldir%/models/check_pcie_link.c \
	%reldir%/models/check_psw.c \
	%reldir%/models/check_rc.c \
	%reldir%/models/check_sparse.c
tests_check_models_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) \
	-DP2PSIM_SRCDIR='"$(abs_top_srcdir)"'
EXTRA_DIST += tests/topologies
tests_check_models_LDADD = models/libmodels.la sim/libsim.la \
	common/libcommon.la $(CHECK_LIBS)

check_PROGRAMS += tests/check_machine
TESTS += tests/check_machine
tests_check_machine_SOURCES = \
	%reldir%/check_p2psim.h \
	%reldir%/check_machine.c \
	%reldir%/machine/open.h \
	%reldir%/machine/open.c \
	%reldir%/machine/check_fabric.c \
	%reldir%/machine/check_topology.c \
	%reldir%/machine/check_route.c \
	%reldir%/machine/check_nvlink.c \
	%reldir%/machine/check_override.c \
	%reldir%/machine/check_vm.c \
	%reldir%/machine/check_vms.c \
	%reldir%/machine/check_exec.c \
	%reldir%/machine/check_flow.c \
	%reldir%/machine/check_kernel.c \
	%reldir%/machine/check_trace.c \
	%reldir%/machine/check_describe.c \
	%reldir%/machine/check_swview.c \
	%reldir%/machine/check_kinds.c \
	%reldir%/machine/check_storage.c
tests_check_machine_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) \
	-DP2PSIM_SRCDIR='"$(abs_top_srcdir)"'
tests_check_machine_LDADD = machine/libp2psim.la $(CHECK_LIBS) -lpthread
if HAVE_SYSTEMC
nodist_EXTRA_tests_check_machine_SOURCES = dummy.cxx
endif

check_PROGRAMS += tests/check_cuda
TESTS += tests/check_cuda
tests_check_cuda_SOURCES = \
	%reldir%/check_p2psim.h \
	%reldir%/check_cuda.c \
	%reldir%/cudart/check_cudart_error.c \
	%reldir%/cudart/check_api_costs.c
tests_check_cuda_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) \
	-DP2PSIM_SRCDIR='"$(abs_top_srcdir)"'
tests_check_cuda_LDADD = cuda/cudart/libcudart_error.la \
	cuda/cudart/libcudart_costs.la machine/libp2psim.la $(CHECK_LIBS) \
	-lpthread
if HAVE_SYSTEMC
nodist_EXTRA_tests_check_cuda_SOURCES = dummy.cxx
endif
EXTRA_DIST += tests/cudart/api-costs

# The allocation-failure sweep (sim/error.h, "Out of memory"): a short
# run with its Nth allocation failed, for every N. The libraries are
# convenience libraries linked statically, so --wrap routes their
# allocations through the runner's hook.
check_PROGRAMS += tests/check_oom
TESTS += tests/check_oom
tests_check_oom_SOURCES = %reldir%/check_oom.c
tests_check_oom_CFLAGS = $(AM_CFLAGS) -DP2PSIM_SRCDIR='"$(abs_top_srcdir)"'
tests_check_oom_LDFLAGS = -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc \
	-Wl,--wrap=strdup,--wrap=strndup,--wrap=aligned_alloc \
	-Wl,--wrap=posix_memalign,--wrap=mmap
tests_check_oom_LDADD = machine/libp2psim.la -lpthread
if HAVE_SYSTEMC
nodist_EXTRA_tests_check_oom_SOURCES = dummy.cxx
endif

# The p2psim server's handler (cuda/server/server.c) in this process: its
# answers once its simulation has failed (out of memory).
check_PROGRAMS += tests/check_server
TESTS += tests/check_server
tests_check_server_SOURCES = %reldir%/server/check_server.c
tests_check_server_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_check_server_LDADD = cuda/server/libserver.la machine/libp2psim.la \
	$(CHECK_LIBS) -lpthread
if HAVE_SYSTEMC
nodist_EXTRA_tests_check_server_SOURCES = dummy.cxx
endif
EXTRA_DIST += tests/server/.may_include

# The CUDA shim, called as programs call it: one suite per file of
# cuda/cudart/ graphs and stream capture (a runner of its own).
check_PROGRAMS += tests/check_cudart_graph
TESTS += tests/check_cudart_graph
tests_check_cudart_graph_SOURCES = %reldir%/cudart/check_graph.c \
	%reldir%/cudart/check_graph_cond.c %reldir%/cudart/module_test.c \
	%reldir%/cudart/server_test.c
tests_check_cudart_graph_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) \
	-DP2PSIM_SRCDIR='"$(abs_top_srcdir)"'
tests_check_cudart_graph_LDADD = cuda/cudart/libcudart.la common/libcommon.la \
	$(CHECK_LIBS) \
	-lpthread

# cuda/cudart/, the error-path suite, each test in its own process.
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
	%reldir%/cudart/check_kernels.c \
	%reldir%/cudart/check_park.c \
	%reldir%/cudart/check_errors.c \
	%reldir%/cudart/check_ipc.c \
	%reldir%/cudart/check_server_kernels.c \
	%reldir%/cudart/check_memcpy2d.c \
	%reldir%/cudart/check_heap.c \
	%reldir%/cudart/check_texture.c \
	%reldir%/cudart/module_test.c \
	%reldir%/cudart/server_test.c
tests_check_cudart_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) \
	-DP2PSIM_SRCDIR='"$(abs_top_srcdir)"'
tests_check_cudart_LDADD = cuda/cudart/libcudart.la common/libcommon.la \
	$(CHECK_LIBS) -lpthread

# traces/ alone (issue 11): the fabric trace formats, readers, filters
# and summaries, linked with traces/libtraces.la only.
check_PROGRAMS += tests/check_traces
TESTS += tests/check_traces
tests_check_traces_SOURCES = \
	%reldir%/check_p2psim.h \
	%reldir%/check_traces.c \
	%reldir%/traces/check_format.c
tests_check_traces_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_check_traces_LDADD = traces/libtraces.la $(CHECK_LIBS)

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
# tests/layout/: the structure kept visible (docs/architecture.md "The
# checks"): includes.sh plants upward includes, direct and through a
# header, in a scratch tree and asserts check-includes.sh refuses them;
# files.sh checks that the file maps of headers, docs/architecture.md and
# README's Layout name what is there, and the sizes of headers and
# sources; files-selftest.sh plants its faults in a scratch tree.
TESTS += tests/layout/includes.sh tests/layout/files.sh \
	tests/layout/files-selftest.sh
EXTRA_DIST += tests/layout/includes.sh tests/layout/files.sh \
	tests/layout/files-selftest.sh tests/sim/.may_include \
	tests/models/.may_include tests/ptx/.may_include \
	tests/machine/.may_include tests/cudart/.may_include \
	tests/common/.may_include
TESTS_ENVIRONMENT = top_srcdir=$(top_srcdir); export top_srcdir; \
	P2PSIM=$(abs_top_builddir)/tools/p2psim; export P2PSIM;
# Check's per-case timeouts (4 s, or what a case sets) are there to catch
# hangs, not slowness: in the sanitizer build on a loaded machine a case
# takes several times as long, so they are ten times longer unless
# CK_TIMEOUT_MULTIPLIER says otherwise.
TESTS_ENVIRONMENT += CK_TIMEOUT_MULTIPLIER=$${CK_TIMEOUT_MULTIPLIER:-10}; \
	export CK_TIMEOUT_MULTIPLIER;
EXTRA_DIST += tests/valgrind.sh

# tests/shim/: the CUDA shim as programs meet it, each a shell script
# (lib.sh holds what they share):
#   symbols.sh  the built library is a drop-in libcudart.so.13 (soname,
#               version node, only cuda*/__cuda* exported)
#   hello.sh    hello.c built with the build tree's pkg-config file and run
#               through `p2psim run`
#   nvcc.sh     nvcc_hello.cu built by nvcc -cudart shared and run
#               unmodified; exits 77 (SKIP) without nvcc, as on CI
#   run.sh      `p2psim run`: errors, environment, exit status, signals
#   quickstart-env.sh  the README's `p2psim` and `cc app.c $(pkg-config
#               ...)` with only what `./quickstart.sh run` says to type
# They compile with configure's compiler and sanitizer flags.
TESTS += tests/shim/symbols.sh tests/shim/hello.sh tests/shim/nvcc.sh \
	tests/shim/run.sh tests/shim/quickstart-env.sh
EXTRA_DIST += tests/shim/.may_include tests/shim/lib.sh \
	tests/shim/symbols.sh tests/shim/hello.sh tests/shim/hello.c \
	tests/shim/nvcc.sh tests/shim/nvcc_hello.cu tests/shim/run.sh \
	tests/shim/rdc_main.cu tests/shim/rdc_kernel.cu \
	tests/shim/quickstart-env.sh
# tests/nvml/nvml.sh: p2psim's NVML loaded as NCCL loads it
# (nvml_check.c) on four machines: its answers are the runtime's and
# `p2psim topo`'s.
TESTS += tests/nvml/nvml.sh
EXTRA_DIST += tests/nvml/nvml.sh tests/nvml/nvml_check.c \
	tests/nvml/topo_xml.sh tests/nvml/compare-topo-dump.sh \
	tests/nvml/nccl-dump-hgx-h100-g2.xml \
	tests/nvml/nccl-dump-dgx1-v100-g4.xml \
	tests/nvml/nccl-dump-4x-rtx4090-switch-acs-iommu-g4.xml
# tests/kernels/run.sh: P2P kernels built by nvcc and run through `p2psim
# run` (peer read, delay + SM copy, producer/consumer with and without a
# fence, atomicAdd_system, PTX against C); exits 77 (SKIP) without nvcc.
TESTS += tests/kernels/run.sh
EXTRA_DIST += tests/kernels/run.sh tests/kernels/p2p_kernels.cu tests/kernels/sm_bw.cu
# tests/kernels/park.sh: spinning warps park and change nothing: the same
# output and --stats summary with and without P2PSIM_PARK=0 (flags written
# by the host, a copy engine, a peer's kernel and atomic; nanosleep; a
# clock timeout); exits 77 (SKIP) without nvcc.
TESTS += tests/kernels/park.sh
EXTRA_DIST += tests/kernels/park.sh tests/kernels/park_kernels.cu \
	tests/kernels/cuda_ck.h
# tests/kernels/coop.sh: cooperative launches built by nvcc (grid.sync()
# through the grid barrier's workspace, the too-large grid, grid.sync()
# without a cooperative launch); exits 77 (SKIP) without nvcc.
TESTS += tests/kernels/coop.sh
EXTRA_DIST += tests/kernels/coop.sh tests/kernels/coop_kernels.cu
# tests/kernels/texture.sh: textures and surfaces built by nvcc (fetch,
# filtering, surfaces, layered, cubemap, 3D arrays) through the server and
# in one process; exits 77 (SKIP) without nvcc.
TESTS += tests/kernels/texture.sh
EXTRA_DIST += tests/kernels/texture.sh tests/kernels/texture_kernels.cu
# tests/kernels/wmma.sh: tensor-core GEMMs built by nvcc (wmma_gemm.cu:
# global fragments with strides, f16 -> f32 and u8 -> s32) under p2psim
# run, through the server and in one process, against the host's product.
TESTS += tests/kernels/wmma.sh
EXTRA_DIST += tests/kernels/wmma.sh tests/kernels/wmma_gemm.cu
# tests/kernels/cdp.sh: dynamic parallelism built by nvcc (cdp_kernels.cu,
# -rdc=true: stream order of children, fire-and-forget and tail launches,
# nesting depth) through the server and in one process.
TESTS += tests/kernels/cdp.sh
EXTRA_DIST += tests/kernels/cdp.sh tests/kernels/cdp_kernels.cu
TESTS_ENVIRONMENT += top_builddir=$(abs_top_builddir); export top_builddir; \
	CC='$(CC)'; export CC; SAN_FLAGS='$(SAN_FLAGS)'; export SAN_FLAGS; \
	PKG_CONFIG='$(PKG_CONFIG)'; export PKG_CONFIG;

# tests/programs/: our own CUDA programs in the spirit of the CUDA samples
# (no kernels), built by programs.sh against cuda/include and the built
# shim with configure's compiler, and run through `p2psim run` on machines
# of the library: peer_copy.c (simpleP2P), bandwidth_latency.c
# (p2pBandwidthLatencyTest's matrices), thread_per_gpu.c (a host thread
# per GPU). The environment is tests/shim/'s (top_builddir, CC, SAN_FLAGS).
TESTS += tests/programs/programs.sh
EXTRA_DIST += tests/programs/.may_include tests/programs/programs.sh \
	tests/programs/peer_copy.c tests/programs/bandwidth_latency.c \
	tests/programs/thread_per_gpu.c

# tests/programs/ipc.sh: ipc_exchange.c, two processes exchanging device
# memory and an interprocess event through CUDA IPC (simpleIPC's idea),
# run through `p2psim run` and its p2psim server. The environment is
# tests/shim/'s (top_builddir, CC, SAN_FLAGS).
TESTS += tests/programs/ipc.sh
EXTRA_DIST += tests/programs/ipc.sh tests/programs/ipc_exchange.c

# tests/programs/copy_sweep: host-to-device, device-to-host and
# device-to-device copies from 4 B to 256 MB and the latency of a small
# copy; the default program of `p2psim compare`, which finds it next to
# tools/p2psim, so it is built with the tree. Linked with the shim, which
# forwards to NVIDIA's runtime under `p2psim run --real`.
noinst_PROGRAMS += tests/programs/copy_sweep
tests_programs_copy_sweep_SOURCES = tests/programs/copy_sweep.c
tests_programs_copy_sweep_CPPFLAGS = -I$(srcdir)/cuda/include
tests_programs_copy_sweep_LDADD = cuda/cudart/libcudart.la
tests_programs_copy_sweep_LDFLAGS = -no-install

# tests/shim/, the dispatch layer (issue 9), with the environment above:
#   dispatch-gen.sh    the generated layer: every declared function is
#                      dispatched, every export of NVIDIA's runtime is in
#                      the shim (served or a stub), and a stub says so and
#                      returns cudaErrorNotSupported
#   passthrough.sh     P2PSIM_BACKEND=cuda against a fake runtime
#                      (fake_cudart.c, generated by the build): every call
#                      forwarded with its arguments, results unchanged,
#                      the API trace, finding the runtime
#   record-replay.sh   traces recorded on the simulator and replayed on
#                      it (within 5%); p2psim compare on saved output
TESTS += tests/shim/dispatch-gen.sh tests/shim/passthrough.sh \
	tests/shim/record-replay.sh
EXTRA_DIST += tests/shim/dispatch-gen.sh tests/shim/passthrough.sh \
	tests/shim/passthrough.c \
	tests/shim/record-replay.sh tools/gen-dispatch.sh
# tests/shim/api-costs.sh: a machine's api-costs: (host cost per call)
# reach the shim, from the file and P2PSIM_SET, through a server and in
# one process: d2d_calls.c's time per back-to-back 4-byte D2D copy
# follows memcpy-async-d2d.
TESTS += tests/shim/api-costs.sh
EXTRA_DIST += tests/shim/api-costs.sh tests/shim/d2d_calls.c
# tests/shim/host-clock.sh: the program's clocks, sleeps and blocking
# outside CUDA under `p2psim run` (cuda/host/, libp2psim-host.so).
TESTS += tests/shim/host-clock.sh
EXTRA_DIST += tests/shim/host-clock.sh tests/shim/host_clock.c \
	tests/shim/host_chrono.cc

# p2psim bench, sweep and validate end to end (cli_bench.sh), and sweep
# under mpirun -np 2 against a serial run (sweep_mpi.sh; exits 77 without
# MPI). The environment is tests/shim/'s (top_builddir, P2PSIM).
TESTS += tests/cli_bench.sh tests/sweep_mpi.sh
EXTRA_DIST += tests/cli_bench.sh tests/sweep_mpi.sh
# tests/vm_clique.sh: user story 5, P2P inside a virtual machine: on
# topologies/vm-2x-h100-passthrough.yaml, p2psim bench's P2P=Enabled
# latency falls at least 3x once both GPUs share a gpudirect-clique
# (staged through host memory without it). Environment as above.
TESTS += tests/vm_clique.sh
EXTRA_DIST += tests/vm_clique.sh
# tests/vms.sh: the host's virtual machines (vms:, issue 25) on
# topologies/vm-host-4x-l40s-2vms.yaml: topo and explain in the host's
# view and a VM's, programs under p2psim run --vm seeing their VM's GPUs
# only (CUDA and NVML), P2P inside a VM beating staging. Environment as
# above.
TESTS += tests/vms.sh
EXTRA_DIST += tests/vms.sh
# tests/validate_gate.sh: the fidelity gate, p2psim validate --fidelity
# flow --fail-above MEDIAN,MAX on every case of data/calibration/, each
# with its own bounds (docs/validate.md). Environment as above.
TESTS += tests/validate_gate.sh
EXTRA_DIST += tests/validate_gate.sh
# tests/latency_classes.sh: small-copy latency per path class (PIX, PXB,
# PHB, NODE, SYS on tests/topologies/latency-classes.yaml; NV1, NV2 on
# dgx1-v100; NVSwitch on hgx-h100), one copy and 100 queued, both
# fidelities. Environment as above.
TESTS += tests/latency_classes.sh
EXTRA_DIST += tests/latency_classes.sh

# The PTX front end (ptx/), linked alone: hand-written PTX always;
# nvcc-built PTX and fat binaries in check_ptx_nvcc, which skips (77)
# where nvcc is absent.
if HAVE_CHECK
check_PROGRAMS += tests/check_ptx tests/check_ptx_nvcc
TESTS += tests/check_ptx tests/check_ptx_nvcc
tests_check_ptx_SOURCES = \
	%reldir%/check_ptx.c \
	%reldir%/ptx/ptx_test.h \
	%reldir%/ptx/helpers.c \
	%reldir%/ptx/check_ptx_hand.c \
	%reldir%/ptx/check_ptx_real.c \
	%reldir%/ptx/check_ptx_link.c \
	%reldir%/ptx/check_ptx_tex.c
tests_check_ptx_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) \
	-DP2PSIM_SRCDIR='"$(abs_top_srcdir)"'
tests_check_ptx_LDADD = ptx/libptx.la common/libcommon.la $(CHECK_LIBS) -lm
tests_check_ptx_nvcc_SOURCES = \
	%reldir%/check_ptx_nvcc.c \
	%reldir%/ptx/ptx_test.h \
	%reldir%/ptx/helpers.c \
	%reldir%/ptx/check_ptx_nvcc.c \
	%reldir%/ptx/check_ptx_wmma.c
tests_check_ptx_nvcc_CFLAGS = $(tests_check_ptx_CFLAGS)
tests_check_ptx_nvcc_LDADD = $(tests_check_ptx_LDADD)
endif
EXTRA_DIST += tests/ptx/hand.ptx tests/ptx/bad.ptx tests/ptx/kernels.cu \
	tests/ptx/wmma.cu \
	tests/ptx/real.ptx tests/ptx/calls.ptx tests/ptx/tex.ptx \
	tests/ptx/indirect.ptx

# tests/traces/cli.sh: the trace options and tools end to end: p2psim run
# --trace/--events/--counters on one_copy.c (built by the script against
# the shim), bench and sweep --trace, p2psim trace summarize, convert and
# filter on the results, P2PSIM_TRACE without p2psim run, and the errors
# for bad options. The environment is tests/shim/'s.
TESTS += tests/traces/cli.sh
EXTRA_DIST += tests/traces/.may_include tests/traces/cli.sh \
	tests/traces/one_copy.c

# tests/stories.sh: docs/stories.md kept true: the walkthrough's commands
# (explain, topo, sweep, bench, trace summarize, p2psim run) on the
# machines of the stories, and its claims checked against their output;
# story 7 builds tests/stories-mp.c against the shim (skipped without
# pkg-config or the shared shim). Environment as tests/shim/'s.
TESTS += tests/stories.sh
EXTRA_DIST += tests/stories.sh tests/stories-mp.c

# tests/real/: NVIDIA's cuda-samples (../shared/clients, or $P2PSIM_CLIENTS)
# unpacked into the build tree, built unpatched by their CMakeLists.txt with
# PTX only and the shared runtime, and run through `p2psim run` on the
# manifest's machines (run.sh; docs/real-programs.md). make check runs the
# manifest's fast set (fast.sh), make check-real every sample; both exit 77
# (SKIP), and say so, without nvcc, cmake or the tarball, as on CI.
TESTS += tests/real/fast.sh
EXTRA_DIST += tests/real/run.sh tests/real/fast.sh tests/real/manifest \
	tests/real/CMakeLists.txt tests/real/ptx-only.cmake
check-real: all
	@$(TESTS_ENVIRONMENT) $(SHELL) $(top_srcdir)/tests/real/run.sh
.PHONY: check-real
