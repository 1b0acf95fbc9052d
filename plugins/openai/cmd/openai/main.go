package main

import (
	"os"

	"github.com/mlperf-host/mlperf-host/plugins/openai/backend"
	"github.com/mlperf-host/mlperf-host/sdk"
)

func main() { sdk.Serve(backend.New(os.LookupEnv)) }
