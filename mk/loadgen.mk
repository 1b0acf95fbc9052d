# loadgen/: the pure-Go MLPerf LoadGen. `make bench-loadgen` runs its
# benchmarks against an in-process null SUT and prints one table row per
# metric; the peak-memory run gets a process of its own so that VmHWM is
# that run's.
LOADGEN_BENCHTIME ?= 3x

.PHONY: bench-loadgen

bench-loadgen: ## LoadGen benchmarks: Offline samples/s, Server max valid QPS, SingleStream turnaround, allocs/sample, peak memory
	@{ $(GO) test -run '^$$' -bench 'ResponderComplete' -benchtime 2000000x ./loadgen/ && \
	   $(GO) test -run '^$$' -bench 'BenchmarkOffline$$|SingleStreamOverhead|ServerQPS' \
		-benchtime $(LOADGEN_BENCHTIME) ./loadgen/ && \
	   $(GO) test -run '^$$' -bench 'OfflinePeakMemory' -benchtime 1x ./loadgen/ ; } | \
	awk 'BEGIN { printf "| %-38s | %-20s | %16s |\n|%s|%s|%s|\n", "benchmark", "metric", "value", \
		"----------------------------------------", "----------------------", "------------------" } \
	/^Benchmark/ { for (i = 3; i < NF; i += 2) printf "| %-38s | %-20s | %16s |\n", $$1, $$(i+1), $$i } \
	/^(FAIL|panic)/ { print; failed = 1 } END { exit failed }'

BENCH_TARGETS += bench-loadgen

# `make bench-contention` runs Server tests at a fixed rate against the null
# SUT while busy processes load every core and prints, per contender, the
# latency percentiles (for a null SUT, the issue lateness) and the fraction
# of VALID runs. CONTENTION_CPP=<driver> adds the official C++ LoadGen
# under the same load, interleaved run by run (docs/loadgen.md says what
# the driver must do); CONTENTION_ARGS passes -contention.* flags
# (-contention.qps, .bound, .busy, .load=threads, .timers).
CONTENTION_ROUNDS ?= 8
CONTENTION_ARGS ?=
CONTENTION_CPP ?=

.PHONY: bench-contention

bench-contention: ## Server issue lateness p50/p99 and VALID runs under CPU contention (CONTENTION_CPP=official driver)
	@uptime
	@$(GO) test -run '^$$' -bench 'ServerContention' -benchtime $(CONTENTION_ROUNDS)x -v ./loadgen/ \
		-args $(if $(CONTENTION_CPP),-contention.cpp=$(CONTENTION_CPP)) $(CONTENTION_ARGS) | \
	awk '/contention_bench_test.go/ { sub(/^.*contention_bench_test.go:[0-9]+: /, "  run: "); print; next } \
	/^BenchmarkServerContention.*ns\/op/ { printf "| %-28s | %14s |\n|%s|%s|\n", "metric", "value", \
		"------------------------------", "----------------"; \
		for (i = 3; i < NF; i += 2) printf "| %-28s | %14s |\n", $$(i+1), $$i } \
	/^(FAIL|panic)/ { print; failed = 1 } END { exit failed }'
	@uptime

BENCH_TARGETS += bench-contention
