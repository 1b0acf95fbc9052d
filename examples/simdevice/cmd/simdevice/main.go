// Command simdevice serves the simulated accelerator as an mlperf-host
// subprocess plugin:
//
//	go build -o simdevice ./examples/simdevice/cmd/simdevice
package main

import (
	"github.com/mlperf-host/mlperf-host/examples/simdevice"
	"github.com/mlperf-host/mlperf-host/sdk"
)

func main() { sdk.Serve(simdevice.New()) }
