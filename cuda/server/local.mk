# cuda/server/: both halves of the multi-process server's protocol live
# here: the wire format (wire.h, which the shim's client, cuda/cudart/
# remote.c, speaks too), the server's handler (server.c, server_ipc.c)
# and its loop on the sockets (server_loop.c), run by `p2psim server`
# (tools/cmd_server.c).
noinst_LTLIBRARIES += cuda/server/libserver.la
cuda_server_libserver_la_SOURCES = \
	%reldir%/server.c \
	%reldir%/server.h \
	%reldir%/server_hostmap.c \
	%reldir%/server_ipc.c \
	%reldir%/server_kernel.c \
	%reldir%/server_loop.c \
	%reldir%/wire.h
EXTRA_DIST += cuda/server/.may_include
