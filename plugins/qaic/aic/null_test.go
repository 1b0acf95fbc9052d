package aic

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/plugins/internal/accel/acceltest"
	"github.com/mlperf-host/mlperf-host/plugins/internal/native"
	"github.com/mlperf-host/mlperf-host/sdk"
)

// nullRuntime is a runtimeAPI whose device finishes every exec object at
// once: no C call, no thread. Against it a benchmark measures only the
// plugin's own Go code.
type nullRuntime struct{ rowBytes, batch int }

var _ runtimeAPI = nullRuntime{}

func (nullRuntime) Version() string                                     { return "null" }
func (nullRuntime) DeviceStatus(int32) (DeviceStatus, bool, error)      { return DeviceReady, true, nil }
func (nullRuntime) Resources(int32) (resources, error)                  { return resources{nspTotal: 16}, nil }
func (nullRuntime) CreateContext([]int32) (object, error)               { return 1, nil }
func (nullRuntime) ReleaseContext(object) error                         { return nil }
func (nullRuntime) CreateQueue(object, int32, uint32) (object, error)   { return 1, nil }
func (nullRuntime) ReleaseQueue(object) error                           { return nil }
func (nullRuntime) OpenQPC(string) (object, error)                      { return 1, nil }
func (nullRuntime) OpenQPCBytes(native.Mapped) (object, error)          { return 1, nil }
func (nullRuntime) CloseQPC(object) error                               { return nil }
func (nullRuntime) LoadProgram(object) error                            { return nil }
func (nullRuntime) UnloadProgram(object) error                          { return nil }
func (nullRuntime) Activate(object, bool) error                         { return nil }
func (nullRuntime) ReleaseProgram(object) error                         { return nil }
func (nullRuntime) IODescriptor(object) (ioData, error)                 { return ioData{}, nil }
func (nullRuntime) CreateExecObj(_, _ object, _ ioData) (object, error) { return 1, nil }
func (nullRuntime) ReleaseExecObj(object) error                         { return nil }
func (nullRuntime) SetData(object, []qBuffer) error                     { return nil }
func (nullRuntime) Enqueue(_, _, _ object) error                        { return nil }
func (nullRuntime) Events() bool                                        { return false }
func (nullRuntime) CreateEvent(object, uint32) (object, error)          { return 0, nil }
func (nullRuntime) ReleaseEvent(object) error                           { return nil }
func (nullRuntime) Arm(object, uintptr, uintptr) error                  { return nil }
func (nullRuntime) Wait(object, uint32) error                           { return nil }

func (nullRuntime) CreateProgram(object, int32, string, object, native.Mapped) (object, error) {
	return 1, nil
}

func (n nullRuntime) BufferMappings(object) ([]mapping, error) {
	return []mapping{
		{name: "x", index: 0, ioType: ioInput, size: n.rowBytes * n.batch},
		{name: "y", index: 1, ioType: ioOutput, size: n.rowBytes * n.batch},
	}, nil
}

// BenchmarkSchedulerOverhead is the plugin's own cost per sample: the real
// scheduler and exec objects against nullRuntime. Two callers, one batch
// per query, 16-byte samples loaded on the host, output wanted.
func BenchmarkSchedulerOverhead(b *testing.B) {
	for _, batch := range []int{1, 8, 64} {
		b.Run(fmt.Sprintf("batch=%d", batch), func(b *testing.B) {
			cfg := DefaultConfig()
			cfg.BatchSize, cfg.SetSize = batch, 2
			p, err := openProgram(nullRuntime{rowBytes: 16, batch: batch}, cfg, []int32{0}, "", []byte("qpc"), nil)
			require.NoError(b, err)
			b.Cleanup(func() { _ = p.Stop() })
			for i := range uint64(batch) {
				p.samples.data[0][i] = acceltest.SampleBytes(i, 16)
			}
			acceltest.ClosedLoop(b, p, []sdk.Query{samplesOf(batch, 16, false, true), samplesOf(batch, 16, false, true)})
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*batch), "ns/sample")
		})
	}
}
