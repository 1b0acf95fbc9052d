# host/: the plugin host. Its WASM test fixtures are committed (CI has no
# wat2wasm); `make host-testdata` rebuilds them from the .wat sources.
HOST_BENCHTIME ?= 2s

.PHONY: host-testdata bench-host

host-testdata: ## rebuild host/'s WASM test fixtures from .wat (needs wat2wasm: apt-get install wabt)
	@command -v wat2wasm >/dev/null || { echo "wat2wasm missing: apt-get install -y wabt"; exit 1; }
	./host/testdata/wasm/gen.sh
	cd host/internal/wasmguard/testdata && wat2wasm --debug-names guard.wat -o guard.wasm && wat2wasm matmul.wat -o matmul.wasm

bench-host: ## transport benchmarks: per-sample cost (Offline) and added latency (Server) per transport
	$(GO) test -run '^$$' -bench 'Offline|Server|GRPCPingFloor|Guard' -benchtime $(HOST_BENCHTIME) ./host/...

BENCH_TARGETS += bench-host
