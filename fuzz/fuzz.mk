# fuzz/fuzz.mk — libFuzzer targets for hangar's parsers (fuzz/README), included by the Makefile.
#
#   make fuzz-build                 builds every target into build/fuzz/ (clang, ASan + UBSan)
#   make fuzz [FUZZ_SECONDS=N] [FUZZ_TARGETS="mission config"] [FUZZ_JOBS=2]
#                                   builds, then runs each target N seconds (default 60) on a copy
#                                   of its seed corpus (scripts/fuzz); fails on any crash
#
# Only the library sources the targets reach are compiled, with clang, into build/fuzz/ (never
# build/src or bin/, which the g++ build owns). The targets link against one archive of them, so
# each takes only the objects it needs.
FUZZ_CXX      ?= clang++
FUZZ_DIR      := $(BUILD)/fuzz
FUZZ_SAN      := address,undefined
FUZZ_CXXFLAGS := -std=c++20 -O1 -g -fsanitize=fuzzer-no-link,$(FUZZ_SAN) \
  -fno-sanitize-recover=undefined -Isrc -MMD -MP
FUZZ_LDFLAGS  := -fsanitize=fuzzer,$(FUZZ_SAN)
FUZZ_SECONDS  ?= 60
FUZZ_JOBS     ?= 1
FUZZ_TARGETS  ?=

# What the parsers under test reach, and nothing else of the library. A parser that comes to call
# into another file needs it added here (make fuzz-build then fails on an undefined reference;
# tests/blackbox/fuzz_short.sh with it).
FUZZ_LIB_SRC := \
  src/base/id.cc src/base/json.cc src/base/json_error.cc src/base/parse_error.cc src/base/sha256.cc src/base/status.cc \
  src/base/strict_json.cc src/base/timefmt.cc \
  src/base/utf8.cc src/env/env.cc src/env/nofollow.cc \
  src/kernel/config.cc src/kernel/control.cc src/kernel/egress.cc src/kernel/exit_info.cc \
  src/kernel/grants.cc src/kernel/mission.cc src/kernel/path_norm.cc src/kernel/plan.cc \
  src/kernel/policy.cc src/kernel/policy_parse.cc src/kernel/requester_memory.cc \
  src/kernel/verdict.cc src/kernel/window.cc \
  src/launch/engine_report.cc src/launch/slurm_job.cc src/launch/systemd_unit.cc \
  src/ledger/anchor.cc src/ledger/checkpoint.cc src/ledger/entry.cc src/ledger/entry_view.cc \
  src/ledger/lines.cc src/ledger/signing_key.cc src/ledger/store.cc \
  src/shell/claude_result.cc src/shell/declaration.cc src/shell/harness_events.cc \
  src/shell/manifest.cc
FUZZ_LIB_OBJ := $(FUZZ_LIB_SRC:%.cc=$(FUZZ_DIR)/%.o)
FUZZ_NAMES   := $(patsubst fuzz/%_fuzz.cc,%,$(wildcard fuzz/*_fuzz.cc))
FUZZ_BINS    := $(FUZZ_NAMES:%=$(FUZZ_DIR)/%_fuzz)

.PHONY: fuzz-build

$(FUZZ_DIR)/%.o: %.cc
	@mkdir -p $(dir $@)
	$(FUZZ_CXX) $(FUZZ_CXXFLAGS) -c $< -o $@

$(FUZZ_DIR)/libparsers.a: $(FUZZ_LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(FUZZ_DIR)/%_fuzz: $(FUZZ_DIR)/fuzz/%_fuzz.o $(FUZZ_DIR)/libparsers.a
	$(FUZZ_CXX) $(FUZZ_LDFLAGS) $^ -o $@ $(LDLIBS)

fuzz-build: $(FUZZ_BINS)

fuzz: deps
	@$(MAKE) --no-print-directory fuzz-build
	@scripts/fuzz --seconds $(FUZZ_SECONDS) --jobs $(FUZZ_JOBS) $(FUZZ_TARGETS)

-include $(FUZZ_LIB_OBJ:.o=.d) $(FUZZ_NAMES:%=$(FUZZ_DIR)/fuzz/%_fuzz.d)
