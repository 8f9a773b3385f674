# hangar — build, test, demo. A newcomer types `make demo` and `make test`; both install what is missing.
CXX      ?= g++
CXXFLAGS ?= -O2 -g
CXXFLAGS += -std=c++20 -Wall -Wextra -Werror -Isrc -MMD -MP
LDLIBS   := -lsimdjson -lcrypto -lboost_filesystem -lseccomp -pthread
# The allocator of the commands that build JSON by the hundred thousand (hangar replay, hangar
# policy try, hangar ls over a large spool): TCMalloc's thread caches take most of malloc's and
# free's cost off them (+30 % replayed signals/s, scripts/bench-replay). Debian ships only the
# runtime library's soname without the dev package's libunwind, hence -l:. hangard keeps glibc's.
MALLOC   := -l:libtcmalloc_minimal.so.4
BUILD    := build
# Build on every core unless the caller chose (-jN on the command line wins).
ifeq (,$(filter -j%,$(MAKEFLAGS)))
MAKEFLAGS += -j$(shell nproc)
endif

LIB_SRC  := $(filter-out %_test.cc %_main.cc,$(wildcard src/*/*.cc))
TEST_SRC := $(wildcard src/*/*_test.cc)
LIB_OBJ  := $(LIB_SRC:%.cc=$(BUILD)/%.o)
TEST_OBJ := $(TEST_SRC:%.cc=$(BUILD)/%.o)
BINS     := bin/hangard bin/hangar bin/hangar-shim bin/hangar-confine bin/hangar-egress \
            bin/hangar-fake-drone bin/hangar-resume-hook bin/hangar-codex-resume

# make install (man/hangard.8, SYSTEMD): DESTDIR stages the tree (a package, a test); PREFIX says
# where the binaries, man pages and units go. hangard finds hangar-shim beside itself ({bindir}),
# so the three go together; the fake drone is a test tool and stays in bin/. systemd reads units
# from both /usr/lib/systemd/system and /usr/local/lib/systemd/system. The config, spool and
# anchor have fixed FHS places, named by the units and the example config.
PREFIX    ?= /usr/local
BINDIR    ?= $(PREFIX)/bin
MANDIR    ?= $(PREFIX)/share/man
UNITDIR   ?= $(PREFIX)/lib/systemd/system
COMPLETIONDIR ?= $(PREFIX)/share/bash-completion/completions
CONFDIR   := /etc/hangar
SPOOLDIR  := /var/spool/hangar
ANCHORDIR := /var/lib/hangar-anchor
# The group that may drop missions and control requests, and the user hangard runs as.
SUBMITTERS   ?= hangar
HANGARD_USER ?= root
INSTALLED := bin/hangard bin/hangar bin/hangar-shim bin/hangar-confine bin/hangar-egress \
             bin/hangar-resume-hook bin/hangar-codex-resume
UNITS     := hangard.service hangar-reconcile.service hangar-reconcile.timer

.PHONY: all deps test check-layers unit blackbox demo bench bench-parts bench-quick bench-quick-parts bench-peers bench-stages bench-ledger bench-gate bench-replay bench-record bench-memory \
	bench-scale bench-manifest bench-workspace bench-backlog bench-latency bench-slurm bench-sandbox bench-sandbox-parts bench-spawn bench-hide bench-fsync bench-children bench-egress gate-report clean format crash-sweep \
	kill-loop install uninstall fuzz
all: deps
	@$(MAKE) --no-print-directory binaries

binaries: $(BINS) bin/hangar_test

deps:
	@scripts/install-deps

$(BUILD)/%.o: %.cc
	@mkdir -p $(dir $@)
	$(CXX) $(CXXFLAGS) -c $< -o $@

$(BUILD)/libhangar.a: $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

bin/hangard: $(BUILD)/src/daemon/hangard_main.o $(BUILD)/libhangar.a
	@mkdir -p bin
	$(CXX) $(CXXFLAGS) $^ -o $@ $(LDLIBS)

bin/hangar: $(BUILD)/src/cli/hangar_main.o $(BUILD)/libhangar.a
	@mkdir -p bin
	$(CXX) $(CXXFLAGS) $^ -o $@ $(LDLIBS) $(MALLOC)

bin/hangar-shim: $(BUILD)/src/launch/shim_main.o $(BUILD)/libhangar.a
	@mkdir -p bin
	$(CXX) $(CXXFLAGS) $^ -o $@ $(LDLIBS)

# A drone's egress proxy (launch/egress_proxy.h), run outside its sandbox.
bin/hangar-egress: $(BUILD)/src/launch/egress_main.o $(BUILD)/libhangar.a
	@mkdir -p bin
	$(CXX) $(CXXFLAGS) $^ -o $@ $(LDLIBS)

# Executed inside every sandbox before the drone or a done-check (launch/confine.h): linked with
# nothing of the library but its own files (and the Landlock ruleset's, shell/landlock.h), and
# statically, so that it costs a launch little (no dynamic loading: +0.7 ms a launch instead of
# +1.9 ms, scripts/bench-sandbox).
bin/hangar-confine: $(BUILD)/src/launch/confine_main.o $(BUILD)/src/launch/confine.o \
                    $(BUILD)/src/launch/confined_exec.o \
                    $(BUILD)/src/shell/landlock.o $(BUILD)/src/shell/namespace_sandbox.o \
                    $(BUILD)/src/shell/network_namespace.o \
                    $(BUILD)/src/kernel/path_norm.o
	@mkdir -p bin
	$(CXX) $(CXXFLAGS) -static $^ -o $@ -lseccomp

# Benchmarks are not part of the library (bench/ is outside src/) nor of `all`.
bin/hangar-bench-ledger: $(BUILD)/bench/ledger_bench.o $(BUILD)/libhangar.a
	@mkdir -p bin
	$(CXX) $(CXXFLAGS) $^ -o $@ $(LDLIBS)

bin/hangar-bench-gate: $(BUILD)/bench/gate_bench.o $(BUILD)/libhangar.a
	@mkdir -p bin
	$(CXX) $(CXXFLAGS) $^ -o $@ $(LDLIBS)

bin/hangar-bench-manifest: $(BUILD)/bench/manifest_bench.o $(BUILD)/libhangar.a
	@mkdir -p bin
	$(CXX) $(CXXFLAGS) $^ -o $@ $(LDLIBS)

bin/hangar-bench-workspace: $(BUILD)/bench/workspace_bench.o $(BUILD)/libhangar.a
	@mkdir -p bin
	$(CXX) $(CXXFLAGS) $^ -o $@ $(LDLIBS)

bin/hangar-bench-replay: $(BUILD)/bench/replay_bench.o $(BUILD)/libhangar.a
	@mkdir -p bin
	$(CXX) $(CXXFLAGS) $^ -o $@ $(LDLIBS) $(MALLOC)

bin/hangar-bench-spawn: $(BUILD)/bench/spawn_bench.o $(BUILD)/libhangar.a
	@mkdir -p bin
	$(CXX) $(CXXFLAGS) $^ -o $@ $(LDLIBS)

bin/hangar-bench-hide: $(BUILD)/bench/hide_bench.o $(BUILD)/libhangar.a
	@mkdir -p bin
	$(CXX) $(CXXFLAGS) $^ -o $@ $(LDLIBS)

bin/hangar-bench-fsync: $(BUILD)/bench/fsync_bench.o $(BUILD)/libhangar.a
	@mkdir -p bin
	$(CXX) $(CXXFLAGS) $^ -o $@ $(LDLIBS)

bin/hangar-bench-sandbox-parts: $(BUILD)/bench/sandbox_parts_bench.o $(BUILD)/libhangar.a
	@mkdir -p bin
	$(CXX) $(CXXFLAGS) $^ -o $@ $(LDLIBS)

bin/hangar-bench-children: $(BUILD)/bench/children_bench.o $(BUILD)/libhangar.a
	@mkdir -p bin
	$(CXX) $(CXXFLAGS) $^ -o $@ $(LDLIBS)

bin/hangar-bench-memory: $(BUILD)/bench/memory_bench.o $(BUILD)/libhangar.a
	@mkdir -p bin
	$(CXX) $(CXXFLAGS) $^ -o $@ $(LDLIBS)

# The floor: the least a durable spooler does per job; no hangar library (scripts/bench-peers).
bin/hangar-bench-floor: $(BUILD)/bench/floor.o
	@mkdir -p bin
	$(CXX) $(CXXFLAGS) $^ -o $@ -pthread

# The latency drone: prints the clocks at exec (scripts/bench-latency); no hangar library.
bin/hangar-bench-stamp: $(BUILD)/bench/exec_stamp.o
	@mkdir -p bin
	$(CXX) $(CXXFLAGS) $^ -o $@

# The gate corpus report (tests/gate/corpus/): a test tool, not part of the library nor of `all`.
bin/hangar-gate-report: $(BUILD)/tests/gate/gate_report.o $(BUILD)/libhangar.a
	@mkdir -p bin
	$(CXX) $(CXXFLAGS) $^ -o $@ $(LDLIBS)

bin/hangar-fake-drone: scripts/fake-drone
	@mkdir -p bin
	install -m 0755 $< $@

# The requester's delivery (man/hangar-memory.5): Claude Code's SessionStart hook, a Codex wrapper.
bin/hangar-resume-hook bin/hangar-codex-resume: bin/%: scripts/%
	@mkdir -p bin
	install -m 0755 $< $@

bin/hangar_test: $(TEST_OBJ) $(BUILD)/libhangar.a | bin/hangar-confine
	@mkdir -p bin
	$(CXX) $(CXXFLAGS) $^ -o $@ -lgtest_main -lgtest $(LDLIBS)

test: all check-layers
	@tests/run-all

check-layers:
	@scripts/check-layers

unit: all
	@bin/hangar_test

blackbox: all
	@tests/blackbox/run

demo: all
	@scripts/demo

# Crash safety (issue 6): hangard crashed before each of its mutating calls in a workload of 19
# missions, then with a simulated power loss at each; and the kill loop: SIGKILL to hangard and
# some shims while 500 missions flow. make test runs a sample of each.
crash-sweep: all
	@scripts/crash-sweep --self-test
	@scripts/crash-sweep --points all --jobs 2 --quiet --json $(BUILD)/crash-sweep.json

kill-loop: all
	@scripts/kill-loop --missions 500

# make bench: every figure, within 20 minutes on 2 cores; results in bench/*.json. Its parts set their
# scratch aside instead of removing it while later parts measure (scripts/bench-set-aside,
# scripts/bench-trash.sh: on an ext4 without a journal a removal slows every file made in the next
# minutes); it is removed after the last part.
bench: all
	@scripts/bench-set-aside $(MAKE) --no-print-directory bench-parts

bench-parts:
	@scripts/bench-peers
	@scripts/bench-latency
	@scripts/bench-stages
	@scripts/bench-backlog
	@scripts/bench-scale
	@scripts/bench-manifest
	@scripts/bench-workspace
	@scripts/bench-ledger
	@scripts/bench-gate
	@scripts/bench-replay
	@scripts/bench-record
	@scripts/bench-memory
	@scripts/bench-slurm
	@scripts/bench-sandbox
	@scripts/bench-sandbox-parts
	@scripts/bench-spawn
	@scripts/bench-hide
	@scripts/bench-fsync
	@scripts/bench-children
	@scripts/bench-egress
	@scripts/bench-summary

# make bench-quick: the same figures from small runs, within 2 minutes; results in build/bench-quick/
# (the committed bench/*.json keep the full runs).
QUICK := $(BUILD)/bench-quick
bench-quick: all
	@scripts/bench-set-aside $(MAKE) --no-print-directory bench-quick-parts

bench-quick-parts:
	@mkdir -p $(QUICK)
	@BENCH_N=50 BENCH_REPS=1 BENCH_PEERS_JSON=$(QUICK)/results-peers.json scripts/bench-peers
	@BENCH_LAT_N=100 BENCH_LAT_IDLE_N=20 BENCH_LAT_JSON=$(QUICK)/latency-results.json \
	  scripts/bench-latency
	@BENCH_STAGES_N=10 BENCH_STAGES_JSON=$(QUICK)/stages-results.json scripts/bench-stages
	@BENCH_LEDGER_N=50000 BENCH_LEDGER_RUNS=1 BENCH_LEDGER_JSON=$(QUICK)/ledger-results.json scripts/bench-ledger
	@BENCH_GATE_N=100000 BENCH_GATE_JSON=$(QUICK)/gate-results.json scripts/bench-gate
	@BENCH_REPLAY_N=10000 BENCH_REPLAY_JSON=$(QUICK)/replay-results.json scripts/bench-replay
	@BENCH_RECORD_N=100 BENCH_RECORD_REPS=1 BENCH_RECORD_JSON=$(QUICK)/record-results.json \
	  scripts/bench-record
	@BENCH_MEMORY_N=2000 BENCH_MEMORY_JSON=$(QUICK)/memory-results.json scripts/bench-memory
	@BENCH_BACKLOG_N=100 BENCH_BACKLOG_JSON=$(QUICK)/backlog-results.json scripts/bench-backlog
	@BENCH_SCALE_N=2000 BENCH_SCALE_JSON=$(QUICK)/scale-results.json scripts/bench-scale
	@BENCH_MANIFEST_FILES=500 BENCH_MANIFEST_BYTES=52428800 \
	  BENCH_MANIFEST_JSON=$(QUICK)/manifest-results.json scripts/bench-manifest
	@BENCH_WORKSPACE_FILES=1000 BENCH_WORKSPACE_RUNS=1 \
	  BENCH_WORKSPACE_JSON=$(QUICK)/workspace-results.json scripts/bench-workspace
	@BENCH_SANDBOX_N=50 BENCH_SANDBOX_JSON=$(QUICK)/sandbox-results.json scripts/bench-sandbox
	@BENCH_SANDBOX_PARTS_N=50 BENCH_SANDBOX_PARTS_ROUNDS=2 \
	  BENCH_SANDBOX_PARTS_JSON=$(QUICK)/sandbox-parts-results.json scripts/bench-sandbox-parts
	@BENCH_SPAWN_N=50 BENCH_SPAWN_ROUNDS=3 BENCH_SPAWN_JSON=$(QUICK)/spawn-results.json scripts/bench-spawn
	@BENCH_HIDE_N=50 BENCH_HIDE_JSON=$(QUICK)/hide-results.json scripts/bench-hide
	@BENCH_FSYNC_ROUNDS=10 BENCH_FSYNC_JSON=$(QUICK)/fsync-results.json scripts/bench-fsync
	@BENCH_CHILDREN_N=20 BENCH_CHILDREN_EXTRA=200 BENCH_CHILDREN_JSON=$(QUICK)/children-results.json \
	  scripts/bench-children
	@BENCH_EGRESS_N=50 BENCH_EGRESS_MB=64 BENCH_EGRESS_JSON=$(QUICK)/egress-results.json \
	  scripts/bench-egress
	@BENCH_DIR=$(QUICK) scripts/bench-summary

bench-peers: all
	@scripts/bench-peers

bench-gate:
	@scripts/bench-gate

bench-ledger:
	@scripts/bench-ledger

bench-replay:
	@scripts/bench-replay

bench-memory:
	@scripts/bench-memory

bench-record: all
	@scripts/bench-record

bench-scale: all
	@scripts/bench-scale

bench-backlog: all
	@scripts/bench-backlog

bench-latency: all
	@scripts/bench-latency

bench-stages: all
	@scripts/bench-stages

bench-slurm: all
	@scripts/bench-slurm

bench-sandbox: all
	@scripts/bench-sandbox

bench-sandbox-parts:
	@scripts/bench-sandbox-parts

bench-spawn:
	@scripts/bench-spawn

bench-hide:
	@scripts/bench-hide

bench-fsync:
	@scripts/bench-fsync

bench-children:
	@scripts/bench-children

bench-egress: all
	@scripts/bench-egress

bench-manifest:
	@scripts/bench-manifest

bench-workspace:
	@scripts/bench-workspace

gate-report: bin/hangar-gate-report
	@bin/hangar-gate-report tests/gate/corpus

# Copies what is built (builds only what is missing or stale). Never overwrites an admin's
# hangar.conf, nor the mode of a spool or anchor directory that exists (the anchor is a mount).
install: $(INSTALLED)
	install -d -m 0755 $(DESTDIR)$(BINDIR) $(DESTDIR)$(UNITDIR) $(DESTDIR)$(CONFDIR) \
	  $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(MANDIR)/man8 \
	  $(DESTDIR)$(COMPLETIONDIR)
	install -m 0755 $(INSTALLED) $(DESTDIR)$(BINDIR)/
	@# bash completion, generated from the command line's own definitions (hangar completion).
	bin/hangar completion bash >$(DESTDIR)$(COMPLETIONDIR)/hangar.tmp
	mv $(DESTDIR)$(COMPLETIONDIR)/hangar.tmp $(DESTDIR)$(COMPLETIONDIR)/hangar
	chmod 0644 $(DESTDIR)$(COMPLETIONDIR)/hangar
	install -m 0644 $(wildcard man/*.1) $(DESTDIR)$(MANDIR)/man1/
	install -m 0644 $(wildcard man/*.5) $(DESTDIR)$(MANDIR)/man5/
	install -m 0644 $(wildcard man/*.8) $(DESTDIR)$(MANDIR)/man8/
	sed 's|@BINDIR@|$(BINDIR)|g' systemd/hangard.service.in >$(DESTDIR)$(UNITDIR)/hangard.service
	chmod 0644 $(DESTDIR)$(UNITDIR)/hangard.service
	install -m 0644 systemd/hangar-reconcile.service systemd/hangar-reconcile.timer \
	  $(DESTDIR)$(UNITDIR)/
	install -m 0644 etc/hangar.conf.example $(DESTDIR)$(CONFDIR)/
	test -e $(DESTDIR)$(CONFDIR)/hangar.conf || \
	  install -m 0640 etc/hangar.conf.example $(DESTDIR)$(CONFDIR)/hangar.conf
	test -d $(DESTDIR)$(SPOOLDIR) || install -d -m 0750 $(DESTDIR)$(SPOOLDIR)
	test -d $(DESTDIR)$(ANCHORDIR) || install -d -m 0700 $(DESTDIR)$(ANCHORDIR)
	@# Who may drop (man/hangar-spool.5 SECURITY): the submitters' group, made when missing, owns
	@# the drop directories; the rest is hangard's. Only for a real install as root.
	@if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" = 0 ]; then \
	  getent group $(SUBMITTERS) >/dev/null || groupadd --system $(SUBMITTERS); \
	  scripts/spool-permissions $(SPOOLDIR) $(SUBMITTERS) $(HANGARD_USER); \
	  echo "spool $(SPOOLDIR): drops by group $(SUBMITTERS), the rest $(HANGARD_USER)'s"; fi

# Removes what install copied; keeps the admin's hangar.conf and hangar's state (spool, anchor).
uninstall:
	rm -f $(addprefix $(DESTDIR)$(BINDIR)/,$(notdir $(INSTALLED)))
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man1/,$(notdir $(wildcard man/*.1)))
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man5/,$(notdir $(wildcard man/*.5)))
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man8/,$(notdir $(wildcard man/*.8)))
	rm -f $(DESTDIR)$(COMPLETIONDIR)/hangar
	rm -f $(addprefix $(DESTDIR)$(UNITDIR)/,$(UNITS)) $(DESTDIR)$(CONFDIR)/hangar.conf.example
	@echo "kept $(DESTDIR)$(CONFDIR)/hangar.conf, $(DESTDIR)$(SPOOLDIR) and $(DESTDIR)$(ANCHORDIR)"

format:
	clang-format -i $(wildcard src/*/*.cc src/*/*.h bench/*.cc tests/gate/*.cc tests/gate/*.h)

clean:
	rm -rf $(BUILD) bin

include fuzz/fuzz.mk

-include $(LIB_OBJ:.o=.d) $(TEST_OBJ:.o=.d) $(wildcard $(BUILD)/src/*/*_main.d $(BUILD)/bench/*.d $(BUILD)/tests/gate/*.d)
