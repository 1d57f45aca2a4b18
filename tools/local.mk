# tools/: the p2psim command.
bin_PROGRAMS += tools/p2psim
tools_p2psim_SOURCES = \
	%reldir%/cli.h \
	%reldir%/cmd_explain.c \
	%reldir%/cmd_topo.c \
	%reldir%/p2psim.c
tools_p2psim_LDADD = api/libp2psim.la
if HAVE_SYSTEMC
nodist_EXTRA_tools_p2psim_SOURCES = dummy.cxx
endif
EXTRA_DIST += tools/.may_include
