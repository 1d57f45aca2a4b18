# cuda/server/: both halves of the multi-process server's protocol live
# here: the wire format (wire.h, which the shim's client, cuda/cudart/
# remote.c, speaks too) and the server's loop and handler (server.c,
# server_ipc.c), run by `p2psim server` (tools/cmd_server.c).
noinst_LTLIBRARIES += cuda/server/libserver.la
cuda_server_libserver_la_SOURCES = \
	%reldir%/server.c \
	%reldir%/server.h \
	%reldir%/server_ipc.c \
	%reldir%/wire.h
EXTRA_DIST += cuda/server/.may_include
