# api/: libp2psim, the public C API. Built on sim/ and models/.
noinst_LTLIBRARIES += api/libp2psim.la
api_libp2psim_la_SOURCES = \
	%reldir%/exec.c \
	%reldir%/exec.h \
	%reldir%/flow.c \
	%reldir%/flow.h \
	%reldir%/flow_int.h \
	%reldir%/flow_plan.c \
	%reldir%/hbm_space.c \
	%reldir%/hbm_space.h \
	%reldir%/links.c \
	%reldir%/links.h \
	%reldir%/osthread.c \
	%reldir%/osthread.h \
	%reldir%/p2psim.c \
	%reldir%/p2psim.h \
	%reldir%/p2psim_int.h \
	%reldir%/trace_sink.c \
	%reldir%/trace_sink.h
api_libp2psim_la_LIBADD = models/libmodels.la sim/libsim.la \
	traces/libtraces.la -lm
if HAVE_SYSTEMC
api_libp2psim_la_LIBADD += sim/systemc/libsim_systemc.la $(SYSTEMC_LIBS)
endif
EXTRA_DIST += api/.may_include

# api/kernel/: the kernel executor (C kernels and PTX kernels on the SMs
# of models/gpu/sm.c); part of libp2psim. docs/kernels.md.
api_libp2psim_la_SOURCES += \
	%reldir%/kernel/kernel.h \
	%reldir%/kernel/kernel_int.h \
	%reldir%/kernel/exec.c \
	%reldir%/kernel/cthread.c
api_libp2psim_la_LIBADD += api/ptx/libptx.la
