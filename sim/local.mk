# sim/: the discrete-event core. Depends on libc only.
noinst_LTLIBRARIES += sim/libsim.la
sim_libsim_la_SOURCES = \
	%reldir%/calendar.c \
	%reldir%/component.c \
	%reldir%/component.h \
	%reldir%/engine.h \
	%reldir%/engine_native.c \
	%reldir%/error.c \
	%reldir%/error.h \
	%reldir%/event.h \
	%reldir%/heap.c \
	%reldir%/port.h \
	%reldir%/props.c \
	%reldir%/props.h \
	%reldir%/queue_int.h \
	%reldir%/sim.c \
	%reldir%/sim.h \
	%reldir%/sim_int.h \
	%reldir%/stats.c \
	%reldir%/stats.h \
	%reldir%/time.h \
	%reldir%/tlp.c \
	%reldir%/tlp.h \
	%reldir%/trace.h \
	%reldir%/units.c \
	%reldir%/units.h \
	%reldir%/wire.c
