# Pools (host.Pool: several plugin instances as one SUT) and remote plugins
# (host.ServeRemote and host.OpenRemote: a plugin on another machine).
POOL_BENCHTIME ?= 1x

.PHONY: bench-pool

bench-pool: ## pools of simulated devices (examples/simdevice) against one member, Offline: 2 and 4 members, and a 1x + 3x pair against the sum of their rates; prints `pool: ...`
	$(GO) test -run '^$$' -bench Pool -benchtime $(POOL_BENCHTIME) ./internal/bridge/

BENCH_TARGETS += bench-pool

.PHONY: bench-remote

bench-remote: ## the echo plugin served over mutual TLS on loopback (ids only, and in the Network division) against the local subprocess, interleaved: Offline samples/s ratios and Server p99; prints `remote: ...`
	$(GO) test -run '^$$' -bench Remote -benchtime 1x ./internal/bridge/

BENCH_TARGETS += bench-remote
