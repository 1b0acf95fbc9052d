# Pools: several plugin instances run as one SUT (host.Pool).
POOL_BENCHTIME ?= 1x

.PHONY: bench-pool

bench-pool: ## pools of simulated devices (examples/simdevice) against one member, Offline: 2 and 4 members, and a 1x + 3x pair against the sum of their rates; prints `pool: ...`
	$(GO) test -run '^$$' -bench Pool -benchtime $(POOL_BENCHTIME) ./internal/bridge/

BENCH_TARGETS += bench-pool
