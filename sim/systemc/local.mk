# sim/systemc/: the optional SystemC engine (C++), built when configure
# finds SystemC (HAVE_SYSTEMC). One SystemC-engine simulation per process:
# its test runner forks.
if HAVE_SYSTEMC
noinst_LTLIBRARIES += %reldir%/libsim_systemc.la
%canon_reldir%_libsim_systemc_la_SOURCES = \
	%reldir%/engine_systemc.cpp \
	%reldir%/engine_systemc.h \
	%reldir%/sc_main_stub.cpp
%canon_reldir%_libsim_systemc_la_CXXFLAGS = $(AM_CXXFLAGS) $(SYSTEMC_CFLAGS)
%canon_reldir%_libsim_systemc_la_LIBADD = $(SYSTEMC_LIBS)

# The hold model as a plain SystemC program (bench/hold links it).
noinst_LTLIBRARIES += bench/libhold_systemc.la
bench_libhold_systemc_la_SOURCES = \
	bench/hold_plain_systemc.cpp \
	bench/hold_plain_systemc.h
bench_libhold_systemc_la_CXXFLAGS = $(AM_CXXFLAGS) $(SYSTEMC_CFLAGS)
bench_libhold_systemc_la_LIBADD = $(SYSTEMC_LIBS)

if HAVE_CHECK
check_PROGRAMS += tests/check_sim_systemc
TESTS += tests/check_sim_systemc
tests_check_sim_systemc_SOURCES = \
	tests/check_sim_systemc.c \
	tests/sim/check_engine_systemc.c
# Link with the C++ driver (libsystemc is C++).
nodist_EXTRA_tests_check_sim_systemc_SOURCES = dummy.cxx
tests_check_sim_systemc_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_check_sim_systemc_LDADD = %reldir%/libsim_systemc.la sim/libsim.la \
	$(CHECK_LIBS) $(SYSTEMC_LIBS)
endif
endif
