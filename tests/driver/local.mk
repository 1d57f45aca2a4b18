# tests/driver/: p2psim's driver API (cuda/driver/, libcuda.so.1) called
# as programs call it, with the runtime it shares its state with; each
# test in its own process, single-process machines (no server).
check_PROGRAMS += tests/check_driver
TESTS += tests/check_driver
tests_check_driver_SOURCES = %reldir%/driver_main.c \
	%reldir%/driver_test.h %reldir%/check_driver.c \
	%reldir%/check_driver_link.c \
	tests/cudart/module_test.c tests/cudart/cudart_test.h
tests_check_driver_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) \
	-DP2PSIM_SRCDIR='"$(abs_top_srcdir)"'
tests_check_driver_LDADD = cuda/driver/libcuda.la cuda/cudart/libcudart.la \
	$(CHECK_LIBS) -lpthread

