package trt

import (
	"fmt"
	"sync/atomic"
	"testing"
	"unsafe"

	"github.com/ebitengine/purego"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/plugins/internal/accel/acceltest"
	"github.com/mlperf-host/mlperf-host/sdk"
)

// nullCUDA is a cudaAPI whose device finishes everything at once: no C
// calls, no threads. Against it a benchmark measures only the plugin's own
// Go code (splitting, lane hand-out, staging, completion).
type nullCUDA struct {
	next atomic.Uintptr
	host [][]byte // keeps "pinned" buffers alive
}

var _ cudaAPI = (*nullCUDA)(nil)

func (n *nullCUDA) DeviceCount() (int, error) { return 1, nil }
func (n *nullCUDA) SetDevice(int) error       { return nil }
func (n *nullCUDA) DeviceProperties(int) (deviceProps, error) {
	return deviceProps{name: "null", totalMemory: 1 << 30}, nil
}
func (n *nullCUDA) PCIBusID(int) (string, error)                          { return "", nil }
func (n *nullCUDA) DeviceAttribute(int, int) (int, error)                 { return 0, nil }
func (n *nullCUDA) RuntimeVersion() (int, error)                          { return 13000, nil }
func (n *nullCUDA) DriverVersion() (int, error)                           { return 13000, nil }
func (n *nullCUDA) MemInfo() (uint64, uint64, error)                      { return 1 << 40, 1 << 40, nil }
func (n *nullCUDA) Free(uintptr) error                                    { return nil }
func (n *nullCUDA) FreeHost(unsafe.Pointer) error                         { return nil }
func (n *nullCUDA) CopyToDevice(uintptr, []byte) error                    { return nil }
func (n *nullCUDA) CopyAsync(_, _, _ uintptr, _ copyKind, _ stream) error { return nil }
func (n *nullCUDA) BatchCopies() bool                                     { return true }
func (n *nullCUDA) CopyBatchAsync(_, _, _ []uintptr, _ stream) error      { return nil }
func (n *nullCUDA) StreamCreate() (stream, error)                         { return 1, nil }
func (n *nullCUDA) StreamDestroy(stream) error                            { return nil }
func (n *nullCUDA) StreamQuery(stream) (bool, error)                      { return true, nil }
func (n *nullCUDA) EventCreate(bool) (event, error)                       { return 1, nil }
func (n *nullCUDA) EventDestroy(event) error                              { return nil }
func (n *nullCUDA) EventRecord(event, stream) error                       { return nil }
func (n *nullCUDA) EventSynchronize(event) error                          { return nil }
func (n *nullCUDA) EventQuery(event) (bool, error)                        { return true, nil }
func (n *nullCUDA) StreamWaitEvent(stream, event) error                   { return nil }
func (n *nullCUDA) Graphs() bool                                          { return true }
func (n *nullCUDA) BeginCapture(stream) error                             { return nil }
func (n *nullCUDA) EndCapture(stream) (graph, error)                      { return 1, nil }
func (n *nullCUDA) GraphInstantiate(graph) (graphExec, error)             { return 1, nil }
func (n *nullCUDA) GraphLaunch(graphExec, stream) error                   { return nil }
func (n *nullCUDA) GraphExecDestroy(graphExec) error                      { return nil }
func (n *nullCUDA) GraphDestroy(graph) error                              { return nil }

func (n *nullCUDA) Malloc(size uintptr) (uintptr, error) {
	return n.next.Add(size+4096) - size, nil
}

func (n *nullCUDA) MallocHost(size uintptr) (unsafe.Pointer, error) {
	b := make([]byte, size)
	n.host = append(n.host, b)
	return unsafe.Pointer(&b[0]), nil
}

// nullTRT is a trtAPI for one engine with a dynamic float32 [-1,4] input
// "x" (profile batch 1..64) and output "y" of the same shape.
type nullTRT struct{}

var _ trtAPI = nullTRT{}

func (nullTRT) Version() int                                             { return 100300 }
func (nullTRT) RuntimeCreate() (handle, error)                           { return 1, nil }
func (nullTRT) RuntimeDestroy(handle)                                    {}
func (nullTRT) Deserialize(handle, []byte) (handle, error)               { return 1, nil }
func (nullTRT) EngineDestroy(handle)                                     {}
func (nullTRT) NumIO(handle) int                                         { return 2 }
func (nullTRT) IOName(_ handle, i int) string                            { return []string{"x", "y"}[i] }
func (nullTRT) IODataType(handle, []byte) int                            { return 0 }
func (nullTRT) IOShape(handle, []byte) ([]int64, error)                  { return []int64{-1, 4}, nil }
func (nullTRT) NumProfiles(handle) int                                   { return 1 }
func (nullTRT) ContextCreate(handle) (handle, error)                     { return 1, nil }
func (nullTRT) ContextDestroy(handle)                                    {}
func (nullTRT) SetProfile(handle, int, stream) error                     { return nil }
func (nullTRT) SetInputShape(handle, []byte, []int64, []byte) error      { return nil }
func (nullTRT) TensorShape(handle, []byte, *[maxDims]int64) (int, error) { return 0, nil }
func (nullTRT) SetTensorAddress(handle, []byte, uintptr) error           { return nil }
func (nullTRT) Enqueue(handle, stream, []byte) error                     { return nil }
func (nullTRT) InitPlugins() error                                       { return nil }
func (nullTRT) LoadPluginLibrary(string) error                           { return nil }
func (nullTRT) Build([]byte, BuildOptions) ([]byte, error)               { return nil, nil }

func (nullTRT) IOMode(_ handle, name []byte) int {
	if name[0] == 'x' {
		return ioInput
	}
	return ioOutput
}

func (nullTRT) ProfileShape(_ handle, _ []byte, _, which int) ([]int64, error) {
	if which == profileMin {
		return []int64{1, 4}, nil
	}
	return []int64{64, 4}, nil
}

// BenchmarkSchedulerOverhead is the plugin's own cost per sample: the real
// scheduler and lanes against nullCUDA and nullTRT, so no C call, thread
// hand-off or device time is counted. Two callers, one batch per query,
// 16-byte samples, output wanted.
func BenchmarkSchedulerOverhead(b *testing.B) {
	for _, residency := range []Residency{ResidencyDevice, ResidencyHost} {
		for _, batch := range []int{1, 8, 64} {
			b.Run(fmt.Sprintf("start_from_device=%s/batch=%d", residency, batch), func(b *testing.B) {
				cfg := DefaultConfig()
				cfg.Streams, cfg.BatchSize, cfg.Residency = 2, batch, residency
				m, err := newModel(&nullCUDA{}, nullTRT{}, nil, cfg, [][]byte{[]byte("plan")}, []int{0})
				require.NoError(b, err)
				b.Cleanup(func() { _ = m.Stop() })
				var ls []sdk.LoadedSample
				for i := range uint64(batch) {
					ls = append(ls, sdk.LoadedSample{Index: i, Data: acceltest.SampleBytes(i, 16)})
				}
				require.NoError(b, m.loadSamples(b.Context(), ls))
				queries := []sdk.Query{acceltest.Query(acceltest.Seq(batch), 16, false, true), acceltest.Query(acceltest.Seq(batch), 16, false, true)}
				acceltest.ClosedLoop(b, m, queries)
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*batch), "ns/sample")
			})
		}
	}
}

// BenchmarkNativeCall is the cost of one purego call into C (the fake's
// cudaGetDevice), which the plugin pays about six times per batch plus once
// per resident sample when cudaMemcpyBatchAsync is not available.
func BenchmarkNativeCall(b *testing.B) {
	f := newFake(b, 1, 1<<20)
	sym := f.Symbol("cudaGetDevice")
	dev := new(int32)
	b.ReportAllocs()
	for b.Loop() {
		purego.SyscallN(sym, uintptr(unsafe.Pointer(dev)))
	}
}
