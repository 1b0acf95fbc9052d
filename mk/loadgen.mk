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
