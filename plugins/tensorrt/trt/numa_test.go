package trt

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/plugins/internal/accel/acceltest"
	"github.com/mlperf-host/mlperf-host/sdk"
)

// copyCPUs returns, for dev's last host-to-device copy, the CPUs (as a
// mask) of the thread that queued it and of the one that allocated its
// source.
func (f *fake) copyCPUs(dev int) (thread, source uint64) {
	f.Call("fakecuda_copy_cpus", uintptr(dev), uintptr(unsafe.Pointer(&thread)), uintptr(unsafe.Pointer(&source)))
	return thread, source
}

// TestNUMAPlacement checks numa_config: each device's lanes queue their
// copies from their node's CPUs, from a pinned copy of the samples that a
// thread on those CPUs allocated and wrote.
func TestNUMAPlacement(t *testing.T) {
	t.Parallel()
	acceltest.NeedAffinity(t, 2)
	f := newFake(t, 2, 1<<22)
	b := newBackend(t, f, fakePlan(planSimple, outSimple),
		map[string]string{"numa_config": "0:0&1:1", "streams": "1", "batch_size": "2"})
	before := f.live().allocs
	require.NoError(t, b.LoadSamples(t.Context(), acceltest.Loaded(acceltest.Seq(8), 16)))
	assert.Equal(t, before+2, f.live().allocs, "one pinned copy per node")
	checkEcho(t, b, acceltest.Seq(8), 16, false) // four batches: both devices run
	for dev, cpu := range []uint64{1 << 0, 1 << 1} {
		thread, source := f.copyCPUs(dev)
		assert.Equal(t, cpu, thread, "device %d's copies are queued on its node's CPUs", dev)
		assert.Equal(t, cpu, source, "device %d reads the copy written on its node's CPUs", dev)
	}
}

func TestNUMAConfigErrors(t *testing.T) {
	t.Parallel()
	acceltest.NeedAffinity(t, 1)
	f := newFake(t, 1, 1<<20)
	b, err := New(f.config())
	require.NoError(t, err)
	t.Cleanup(func() { _ = b.Close() })
	err = b.Load(t.Context(), sdk.Model{Bytes: fakePlan(planSimple, outSimple),
		Options: map[string]string{"numa_config": "0:1000"}})
	require.ErrorContains(t, err, "numa_config: pin the thread to CPUs [1000]")
}
