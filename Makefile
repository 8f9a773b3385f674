# hangar — build, test, demo. A newcomer types `make demo` and `make test`; both install what is missing.
CXX      ?= g++
CXXFLAGS ?= -O2 -g
CXXFLAGS += -std=c++20 -Wall -Wextra -Werror -Isrc -MMD -MP
LDLIBS   := -lsimdjson -lcrypto -lboost_filesystem -pthread
BUILD    := build
# Build on every core unless the caller chose (-jN on the command line wins).
ifeq (,$(filter -j%,$(MAKEFLAGS)))
MAKEFLAGS += -j$(shell nproc)
endif

LIB_SRC  := $(filter-out %_test.cc %_main.cc,$(wildcard src/*/*.cc))
TEST_SRC := $(wildcard src/*/*_test.cc)
LIB_OBJ  := $(LIB_SRC:%.cc=$(BUILD)/%.o)
TEST_OBJ := $(TEST_SRC:%.cc=$(BUILD)/%.o)
BINS     := bin/hangard bin/hangar bin/hangar-shim bin/hangar-fake-drone

.PHONY: all deps test unit blackbox demo bench bench-quick bench-peers bench-ledger bench-gate \
	bench-scale bench-manifest bench-backlog bench-latency gate-report clean format crash-sweep \
	kill-loop
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
	$(CXX) $(CXXFLAGS) $^ -o $@ $(LDLIBS)

bin/hangar-shim: $(BUILD)/src/launch/shim_main.o $(BUILD)/libhangar.a
	@mkdir -p bin
	$(CXX) $(CXXFLAGS) $^ -o $@ $(LDLIBS)

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

bin/hangar_test: $(TEST_OBJ) $(BUILD)/libhangar.a
	@mkdir -p bin
	$(CXX) $(CXXFLAGS) $^ -o $@ -lgtest_main -lgtest $(LDLIBS)

test: all
	@tests/run-all

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

# make bench: every figure, within 20 minutes on 2 cores; results in bench/*.json.
bench: all
	@scripts/bench-peers
	@scripts/bench-latency
	@scripts/bench-backlog
	@scripts/bench-scale
	@scripts/bench-manifest
	@scripts/bench-ledger
	@scripts/bench-gate
	@scripts/bench-summary

# make bench-quick: the same figures from small runs, within 2 minutes; results in build/bench-quick/
# (the committed bench/*.json keep the full runs).
QUICK := $(BUILD)/bench-quick
bench-quick: all
	@mkdir -p $(QUICK)
	@BENCH_N=50 BENCH_REPS=1 BENCH_PEERS_JSON=$(QUICK)/results-peers.json scripts/bench-peers
	@BENCH_LAT_N=100 BENCH_LAT_IDLE_N=20 BENCH_LAT_JSON=$(QUICK)/latency-results.json \
	  scripts/bench-latency
	@BENCH_LEDGER_N=50000 BENCH_LEDGER_RUNS=1 BENCH_LEDGER_JSON=$(QUICK)/ledger-results.json scripts/bench-ledger
	@BENCH_GATE_N=100000 BENCH_GATE_JSON=$(QUICK)/gate-results.json scripts/bench-gate
	@BENCH_BACKLOG_N=100 BENCH_BACKLOG_JSON=$(QUICK)/backlog-results.json scripts/bench-backlog
	@BENCH_SCALE_N=2000 BENCH_SCALE_JSON=$(QUICK)/scale-results.json scripts/bench-scale
	@BENCH_MANIFEST_FILES=500 BENCH_MANIFEST_BYTES=52428800 \
	  BENCH_MANIFEST_JSON=$(QUICK)/manifest-results.json scripts/bench-manifest
	@BENCH_DIR=$(QUICK) scripts/bench-summary

bench-peers: all
	@scripts/bench-peers

bench-gate:
	@scripts/bench-gate

bench-ledger:
	@scripts/bench-ledger

bench-scale: all
	@scripts/bench-scale

bench-backlog: all
	@scripts/bench-backlog

bench-latency: all
	@scripts/bench-latency

bench-manifest:
	@scripts/bench-manifest

gate-report: bin/hangar-gate-report
	@bin/hangar-gate-report tests/gate/corpus

format:
	clang-format -i $(wildcard src/*/*.cc src/*/*.h bench/*.cc tests/gate/*.cc tests/gate/*.h)

clean:
	rm -rf $(BUILD) bin

-include $(LIB_OBJ:.o=.d) $(TEST_OBJ:.o=.d) $(wildcard $(BUILD)/src/*/*_main.d $(BUILD)/bench/*.d $(BUILD)/tests/gate/*.d)
