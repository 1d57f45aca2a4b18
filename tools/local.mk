# tools/: the p2psim command.
bin_PROGRAMS += tools/p2psim
tools_p2psim_SOURCES = \
	%reldir%/cli.h \
	%reldir%/cmd_explain.c \
	%reldir%/cmd_run.c \
	%reldir%/elf_needed.c \
	%reldir%/elf_needed.h \
	%reldir%/cmd_server.c \
	%reldir%/cmd_topo.c \
	%reldir%/nccl_xml.c \
	%reldir%/nccl_xml.h \
	%reldir%/p2psim.c
tools_p2psim_LDADD = cuda/server/libserver.la \
	cuda/cudart/libcudart_costs.la machine/libp2psim.la
# p2psim run finds the installed CUDA shim (libcudart.so.13) here.
tools_p2psim_CPPFLAGS = $(AM_CPPFLAGS) -DP2PSIM_PKGLIBDIR='"$(pkglibdir)"'
# p2psim bench, sweep and validate: the measurements (bwlat*.c, run in
# child processes that dlopen the CUDA shim), their output (matrices.c,
# plot.c with the gnuplot scripts of tools/gnuplot/ built in).
tools_p2psim_SOURCES += \
	%reldir%/bwlat.c \
	%reldir%/bwlat.h \
	%reldir%/bwlat_int.h \
	%reldir%/bwlat_job.c \
	%reldir%/cmd_bench.c \
	%reldir%/cmd_sweep.c \
	%reldir%/cmd_validate.c \
	%reldir%/matrices.c \
	%reldir%/matrices.h \
	%reldir%/plot.c \
	%reldir%/plot.h \
	%reldir%/sweep.c \
	%reldir%/sweep.h \
	%reldir%/sweep_output.c \
	%reldir%/sweep_mpi.h
nodist_tools_p2psim_SOURCES = %reldir%/gnuplot_scripts.c
gnuplot_scripts = heatmap sweep util
%reldir%/gnuplot_scripts.c: $(gnuplot_scripts:%=$(srcdir)/tools/gnuplot/%.gp) Makefile
	$(AM_V_GEN)mkdir -p tools && { \
	  echo '/* Generated from tools/gnuplot/ by tools/local.mk: do not edit. */'; \
	  echo '#include <config.h>'; \
	  echo '#include "tools/plot.h"'; \
	  for s in $(gnuplot_scripts); do \
	    echo "const char plot_gp_$$s[] ="; \
	    sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/    "/' -e 's/$$/\\n"/' \
	      $(srcdir)/tools/gnuplot/$$s.gp; \
	    echo '    ;'; \
	  done; } > $@.tmp && mv $@.tmp $@
BUILT_SOURCES += %reldir%/gnuplot_scripts.c
CLEANFILES += %reldir%/gnuplot_scripts.c
EXTRA_DIST += $(gnuplot_scripts:%=tools/gnuplot/%.gp)
# The case files of p2psim validate are YAML; their reader (and the
# matrix names it checks against) is a library of its own so that the
# fuzzing harness fuzz/fuzz_validate.c links it without the command.
noinst_LTLIBRARIES += tools/libvalidate.la
tools_libvalidate_la_SOURCES = \
	%reldir%/bwlat_matrix.c \
	%reldir%/validate_case.c \
	%reldir%/validate_case.h
tools_libvalidate_la_CFLAGS = $(AM_CFLAGS) $(YAML_CFLAGS)
tools_libvalidate_la_LIBADD = $(YAML_LIBS)
tools_p2psim_CFLAGS = $(AM_CFLAGS) $(YAML_CFLAGS)
tools_p2psim_LDADD += tools/libvalidate.la $(YAML_LIBS)
# p2psim replay and compare (issue 9): an API trace (traces/api_trace.c
# reads it) replayed through the CUDA shim in a child process (replay.c),
# and a program run on the real GPU and on a simulated machine side by
# side (the default program is tests/programs/copy_sweep).
tools_p2psim_SOURCES += \
	%reldir%/cmd_compare.c \
	%reldir%/cmd_replay.c \
	%reldir%/replay.c \
	%reldir%/replay_calls.c \
	%reldir%/replay_int.h \
	%reldir%/replay.h
tools_p2psim_LDADD += traces/libtraces.la
if HAVE_SYSTEMC
nodist_EXTRA_tools_p2psim_SOURCES = dummy.cxx
endif
# p2psim sweep's MPI plugin (tools/sweep_mpi.h): the only object built
# with MPI's flags, loaded by p2psim sweep under mpirun.
if HAVE_MPI
pkglib_LTLIBRARIES += tools/p2psim-mpi.la
tools_p2psim_mpi_la_SOURCES = %reldir%/sweep_mpi.c %reldir%/sweep_mpi.h
tools_p2psim_mpi_la_CFLAGS = $(AM_CFLAGS) $(MPI_CFLAGS)
tools_p2psim_mpi_la_LIBADD = $(MPI_LIBS)
tools_p2psim_mpi_la_LDFLAGS = -module -avoid-version -shared
endif
EXTRA_DIST += tools/sweep_mpi.c
EXTRA_DIST += tools/.may_include
# The calibration cases of p2psim validate (docs/validate.md).
EXTRA_DIST += data/calibration
# p2psim trace and the trace options of run, bench and sweep (issue 11):
# reading fabric traces (traces/), the options handed to the simulating
# process, the utilisation plot (tools/gnuplot/util.gp).
tools_p2psim_SOURCES += \
	%reldir%/cmd_trace.c \
	%reldir%/trace_opts.c \
	%reldir%/trace_opts.h
