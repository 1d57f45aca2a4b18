# ptx/: the PTX front end (fat binary extraction, parser, per-warp
# interpreter). A leaf: libc, common/ (libcommon: the atomic arithmetic;
# whatever links libptx links it too) and, where configure found it, libzstd.
noinst_LTLIBRARIES += ptx/libptx.la
ptx_libptx_la_SOURCES = \
	%reldir%/ptx.h \
	%reldir%/ptx_int.h \
	%reldir%/fatbin.c \
	%reldir%/ptx_link.c \
	%reldir%/ptx_link.h \
	%reldir%/parse_int.h \
	%reldir%/parse.c \
	%reldir%/parse_body.c \
	%reldir%/parse_decl.c \
	%reldir%/parse_lex.c \
	%reldir%/parse_call.c \
	%reldir%/decode.c \
	%reldir%/decode_tex.c \
	%reldir%/decode_wmma.c \
	%reldir%/interp_int.h \
	%reldir%/interp.c \
	%reldir%/interp_alu.c \
	%reldir%/interp_mem.c \
	%reldir%/interp_move.c \
	%reldir%/interp_warp.c \
	%reldir%/interp_call.c \
	%reldir%/interp_state.c \
	%reldir%/interp_f16.c \
	%reldir%/interp_fast.c \
	%reldir%/interp_tex.c \
	%reldir%/interp_wmma.c \
	%reldir%/wmma_int.h \
	%reldir%/tex_int.h \
	%reldir%/ptx_tex.h \
	%reldir%/flat.c \
	%reldir%/flat.h
ptx_libptx_la_CFLAGS = $(AM_CFLAGS) $(ZSTD_CFLAGS)
ptx_libptx_la_LIBADD = $(ZSTD_LIBS) -lm
EXTRA_DIST += ptx/.may_include
