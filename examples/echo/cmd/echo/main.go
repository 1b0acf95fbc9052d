// Command echo serves the echo backend as an mlperf-host plugin. The same
// source builds both ways:
//
//	go build -o echo ./examples/echo/cmd/echo                                                  # subprocess
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o echo.wasm ./examples/echo/cmd/echo # WASM
//
// It reads its configuration from the environment: MLPERF_ECHO_MAX_BATCH,
// MLPERF_ECHO_MAX_IN_FLIGHT, MLPERF_ECHO_FIRST_TOKENS=1 (the host passes a
// subprocess Config.Env; a WASM guest gets no environment from the host,
// so it runs the defaults), and, in the subprocess, MLPERF_ECHO_START: a
// start-up fault for the host's tests, "slow" (no handshake for a minute)
// or "die" (exit 1 before the handshake).
package main

import (
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/mlperf-host/mlperf-host/examples/echo"
	"github.com/mlperf-host/mlperf-host/sdk"
)

// A WASM reactor runs init and never main; elsewhere Register does
// nothing.
func init() { sdk.Register(echo.New(config())) }

func main() {
	switch os.Getenv("MLPERF_ECHO_START") {
	case "slow":
		time.Sleep(time.Minute)
	case "die":
		fmt.Fprintln(os.Stderr, "echo: injected failure before the handshake")
		os.Exit(1)
	}
	sdk.Serve(echo.New(config()))
}

func config() echo.Config {
	return echo.Config{
		MaxBatch:    envInt("MLPERF_ECHO_MAX_BATCH"),
		MaxInFlight: envInt("MLPERF_ECHO_MAX_IN_FLIGHT"),
		FirstTokens: os.Getenv("MLPERF_ECHO_FIRST_TOKENS") == "1",
	}
}

// envInt reads a non-negative number; a bad value is ignored with a
// warning on stderr (the host logs it).
func envInt(key string) int {
	v := os.Getenv(key)
	if v == "" {
		return 0
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		fmt.Fprintf(os.Stderr, "echo: ignoring %s=%q: want a number\n", key, v)
		return 0
	}
	return n
}
