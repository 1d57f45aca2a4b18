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
	%reldir%/p2psim.c \
	%reldir%/p2psim.h \
	%reldir%/p2psim_int.h
api_libp2psim_la_LIBADD = models/libmodels.la sim/libsim.la -lm
if HAVE_SYSTEMC
api_libp2psim_la_LIBADD += sim/systemc/libsim_systemc.la $(SYSTEMC_LIBS)
endif
EXTRA_DIST += api/.may_include
