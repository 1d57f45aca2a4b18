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
bench_fabric_SOURCES = %reldir%/fabric.c
bench_fabric_LDADD = models/libmodels.la sim/libsim.la
