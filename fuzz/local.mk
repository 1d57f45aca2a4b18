# fuzz/: libFuzzer harnesses, one per parser of untrusted input
# (docs/fuzzing.md). `make fuzz` builds them with clang's
# -fsanitize=fuzzer,address,undefined where configure found such a clang
# ($(FUZZ_CC)); they are part of neither `make all` nor `make check`.
# fuzz/run.sh runs each over its corpus, then fuzzes it for a while.
#
# The harnesses and the library code they call are compiled here, with
# $(FUZZ_CC), into fuzz/obj/ (the libraries of the normal build are built
# by $(CC), without the fuzzer's coverage instrumentation). The object
# lists below name a library's sources once, from its own local.mk.
#
# To add a harness: write fuzz/fuzz_NAME.c (it defines
# LLVMFuzzerTestOneInput), put seed inputs in fuzz/corpus/NAME/, and add
# ONE line below naming the objects it links, e.g.
#   fuzz/fuzz_NAME: $(fuzz_traces)
# `make fuzz` builds every fuzz/fuzz_*.c it finds.
fuzz_o = $(patsubst %.c,fuzz/obj/%.o,$(filter %.c,$(1)))
fuzz_sim = $(call fuzz_o,$(sim_libsim_la_SOURCES))
fuzz_common = $(call fuzz_o,$(common_libcommon_la_SOURCES))
fuzz_models = $(call fuzz_o,$(models_libmodels_la_SOURCES)) $(fuzz_sim)
fuzz_traces = $(call fuzz_o,$(traces_libtraces_la_SOURCES))
fuzz_ptx = $(call fuzz_o,$(ptx_libptx_la_SOURCES)) $(fuzz_common)
fuzz_machine = $(call fuzz_o,$(machine_libp2psim_la_SOURCES) \
	$(nodist_machine_libp2psim_la_SOURCES)) $(fuzz_models) $(fuzz_ptx) \
	$(fuzz_traces) $(fuzz_common) fuzz/obj/fuzz/no_systemc.o
fuzz_validate = $(call fuzz_o,$(tools_libvalidate_la_SOURCES))
fuzz_server = $(call fuzz_o,$(cuda_server_libserver_la_SOURCES)) \
	$(fuzz_machine)

# ---- the harnesses: one line each -------------------------------------------
fuzz/fuzz_topology: $(fuzz_machine)
fuzz/fuzz_overrides: $(fuzz_machine)
fuzz/fuzz_ptx: $(fuzz_ptx)
fuzz/fuzz_fatbin: $(fuzz_ptx)
fuzz/fuzz_ptx_link: $(fuzz_ptx)
fuzz/fuzz_api_trace: $(fuzz_traces)
fuzz/fuzz_tlp_trace: $(fuzz_traces)
fuzz/fuzz_trace_filter: $(fuzz_traces)
fuzz/fuzz_validate: $(fuzz_validate)
fuzz/fuzz_server fuzz/fuzz_ipc: $(fuzz_server)
# -----------------------------------------------------------------------------

fuzz_names = $(sort $(patsubst fuzz_%.c,%,$(notdir \
	$(wildcard $(srcdir)/fuzz/fuzz_*.c))))
fuzz_programs = $(fuzz_names:%=fuzz/fuzz_%)
FUZZ_SAN = -fsanitize=address,undefined -fno-sanitize-recover=undefined \
	-fno-omit-frame-pointer
FUZZ_CPPFLAGS = $(DEFS) $(DEFAULT_INCLUDES) $(AM_CPPFLAGS) $(CPPFLAGS) \
	$(YAML_CFLAGS) $(ZSTD_CFLAGS) -DP2PSIM_FUZZING=1
FUZZ_LIBS = $(YAML_LIBS) $(ZSTD_LIBS) -lm -lpthread -ldl

if HAVE_FUZZ
fuzz: $(fuzz_programs)
	@echo "make fuzz: built $(fuzz_programs); run them with" \
	  "$(top_srcdir)/fuzz/run.sh (docs/fuzzing.md)"

fuzz/obj/%.o: %.c
	@mkdir -p $(@D)
	$(AM_V_CC)$(FUZZ_CC) $(FUZZ_CPPFLAGS) -std=gnu11 -g -O1 $(FUZZ_CFLAGS) \
	  -fsanitize=fuzzer-no-link $(FUZZ_SAN) -MMD -MP -c -o $@ $<

fuzz/fuzz_%: fuzz/obj/fuzz/fuzz_%.o
	$(AM_V_CCLD)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer $(FUZZ_SAN) \
	  -o $@ $^ $(FUZZ_LIBS)

.PRECIOUS: fuzz/obj/fuzz/%.o
-include $(wildcard fuzz/obj/*/*.d fuzz/obj/*/*/*.d fuzz/obj/*/*/*/*.d)
else
fuzz:
	@echo "make fuzz: configure found no clang that builds" \
	  "-fsanitize=fuzzer,address,undefined; install clang (Debian:" \
	  "apt-get install clang) and run configure again, or give" \
	  "FUZZ_CC=/path/to/clang to configure" >&2; exit 1
endif
.PHONY: fuzz fuzz-clean
fuzz-clean:
	rm -rf fuzz/obj $(fuzz_programs)
EXTRA_DIST += fuzz/.may_include fuzz/run.sh fuzz/ci-runs fuzz/corpus $(patsubst $(srcdir)/%,%,$(wildcard \
	$(srcdir)/fuzz/*.c $(srcdir)/fuzz/*.h $(srcdir)/fuzz/*.dict))
