package loadgen_test

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/mlperf-host/mlperf-host/loadgen"
)

// echoSUT answers every sample at once, inside IssueQuery.
type echoSUT struct{}

func (echoSUT) Name() string                       { return "echo" }
func (echoSUT) FlushQueries(context.Context) error { return nil }

func (echoSUT) IssueQuery(_ context.Context, samples []loadgen.QuerySample, r *loadgen.Responder) error {
	resp := make([]loadgen.QuerySampleResponse, len(samples))
	for i, s := range samples {
		resp[i] = loadgen.QuerySampleResponse{ID: s.ID, Data: []byte{byte(s.Index)}}
	}
	return r.QuerySamplesComplete(resp)
}

// memQSL is a data set that lives in memory already.
type memQSL struct{}

func (memQSL) Name() string                                         { return "mem" }
func (memQSL) TotalSampleCount() uint64                             { return 100 }
func (memQSL) PerformanceSampleCount() uint64                       { return 50 }
func (memQSL) LoadSamplesToRAM(context.Context, []uint64) error     { return nil }
func (memQSL) UnloadSamplesFromRAM(context.Context, []uint64) error { return nil }

func ExampleStartTest() {
	dir, err := os.MkdirTemp("", "loadgen-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)

	s := loadgen.DefaultTestSettings()
	s.Scenario = loadgen.Offline
	s.MinDuration = 0
	s.MinQueryCount = 1000
	res, err := loadgen.StartTest(context.Background(), echoSUT{}, memQSL{}, s, loadgen.LogSettings{OutDir: dir})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Scenario, res.Mode, "valid:", res.Valid)
	fmt.Println("samples:", res.Performance.SamplesCompleted)
	fmt.Println("metric:", res.Performance.MetricName)
	// Output:
	// Offline PerformanceOnly valid: true
	// samples: 1000
	// metric: Samples per second
}

func ExampleConfig_Apply() {
	rules, err := loadgen.ParseConfig(strings.NewReader(`
*.Server.target_latency = 10
resnet50.Server.target_latency = 15
*.*.qsl_rng_seed = 1780908523862526354
`), "mlperf.conf")
	if err != nil {
		panic(err)
	}
	user, err := loadgen.ParseConfig(strings.NewReader("resnet50.Server.target_qps = 2500\n"), "user.conf")
	if err != nil {
		panic(err)
	}
	model := loadgen.ConfigModelName("resnet50-99")
	s := loadgen.DefaultTestSettings()
	s.Scenario = loadgen.Server
	if s, err = rules.Apply(s, model, s.Scenario, loadgen.MLPerfConf); err != nil {
		panic(err)
	}
	if s, err = user.Apply(s, model, s.Scenario, loadgen.UserConf); err != nil {
		panic(err)
	}
	fmt.Println(model, s.ServerTargetLatency, s.ServerTargetQPS, s.QSLRNGSeed)
	// Output:
	// resnet50 15ms 2500 1780908523862526354
}
