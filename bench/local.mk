# bench/: benchmarks, never run by `make check`. `make bench` builds and
# runs them all; each is also a program of the build tree.
noinst_PROGRAMS += bench/hold
bench_programs += bench/hold
bench_runs += bench/hold
bench_hold_SOURCES = %reldir%/hold.c
bench_hold_LDADD = sim/libsim.la
if HAVE_SYSTEMC
bench_hold_LDADD += sim/systemc/libsim_systemc.la bench/libhold_systemc.la $(SYSTEMC_LIBS)
nodist_EXTRA_bench_hold_SOURCES = dummy.cxx
endif

noinst_PROGRAMS += bench/fabric
bench_programs += bench/fabric
bench_runs += bench/fabric
bench_fabric_SOURCES = %reldir%/fabric_bench.c
bench_fabric_LDADD = machine/libp2psim.la -lm
# It builds a fabric without p2psim_open, so nothing pulls the SystemC
# engine (and its weak sc_main, sim/systemc/sc_main_stub.cpp) out of the
# archive; libsystemc.so, which wants an sc_main, is then not linked.
bench_fabric_LDFLAGS = $(AM_LDFLAGS) -Wl,--as-needed
if HAVE_SYSTEMC
nodist_EXTRA_bench_fabric_SOURCES = dummy.cxx
endif

noinst_PROGRAMS += bench/flow
bench_programs += bench/flow
bench_runs += bench/flow
bench_flow_SOURCES = %reldir%/flow_bench.c
bench_flow_LDADD = machine/libp2psim.la -lm
if HAVE_SYSTEMC
nodist_EXTRA_bench_flow_SOURCES = dummy.cxx
endif

# p2psim bench (the p2pBandwidthLatencyTest matrices) timed in both
# fidelities on the 8-GPU default machine; runs ../tools/p2psim.
noinst_PROGRAMS += bench/matrices
bench_programs += bench/matrices tools/p2psim cuda/cudart/libcudart.la
bench_runs += bench/matrices
bench_matrices_SOURCES = %reldir%/matrices.c
bench_matrices_LDADD = -lm

# What tracing costs compiled in but off (issue 11): bench/trace runs the
# same workload as bench/trace-off, whose sim/ is compiled with the trace
# tests removed (SIM_TRACE_COMPILED_OUT, sim/trace.h); its own copy of
# sim/ comes first at link time, so libp2psim's is not used.
noinst_PROGRAMS += bench/trace bench/trace-off
bench_programs += bench/trace bench/trace-off
bench_runs += bench/trace
bench_trace_SOURCES = %reldir%/trace_bench.c
bench_trace_LDADD = machine/libp2psim.la -lm
bench_trace_off_SOURCES = %reldir%/trace_bench.c $(sim_libsim_la_SOURCES)
bench_trace_off_CPPFLAGS = $(AM_CPPFLAGS) -DSIM_TRACE_COMPILED_OUT
bench_trace_off_LDADD = machine/libp2psim.la -lm
if HAVE_SYSTEMC
nodist_EXTRA_bench_trace_SOURCES = dummy.cxx
nodist_EXTRA_bench_trace_off_SOURCES = dummy.cxx
endif

# The PTX interpreter's speed (ptx/) on the flat executor.
noinst_PROGRAMS += bench/ptx
bench_programs += bench/ptx
bench_runs += bench/ptx
bench_ptx_SOURCES = %reldir%/ptx_bench.c
bench_ptx_LDADD = ptx/libptx.la common/libcommon.la -lm

# What parking spinning warps saves (machine/kernel/spin.c): 4096 PTX
# threads polling a device flag for 1 ms, with and without P2PSIM_PARK=0.
noinst_PROGRAMS += bench/spin
bench_programs += bench/spin
bench_runs += bench/spin
bench_spin_SOURCES = %reldir%/spin.c
bench_spin_LDADD = machine/libp2psim.la -lm
if HAVE_SYSTEMC
nodist_EXTRA_bench_spin_SOURCES = dummy.cxx
endif

# An all-to-all copy on the GB200 NVL72 (72 GPUs, 18 NVSwitches): wall
# time and events per second (issue 7).
noinst_PROGRAMS += bench/nvl72
bench_programs += bench/nvl72
bench_runs += bench/nvl72
bench_nvl72_SOURCES = %reldir%/nvl72.c
bench_nvl72_CFLAGS = $(AM_CFLAGS) -DP2PSIM_SRCDIR='"$(abs_top_srcdir)"'
bench_nvl72_LDADD = machine/libp2psim.la -lm
if HAVE_SYSTEMC
nodist_EXTRA_bench_nvl72_SOURCES = dummy.cxx
endif
