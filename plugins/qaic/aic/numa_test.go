package aic

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/plugins/internal/accel/acceltest"
	"github.com/mlperf-host/mlperf-host/sdk"
)

// cpus returns, for dev's last run, the CPUs (as a mask) of the queue
// thread that ran it and of the thread that enqueued it.
func (f *fakeQAic) cpus(dev int) (run, enqueue uint64) {
	f.Call("fakeqaic_cpus", uintptr(dev), uintptr(unsafe.Pointer(&run)), uintptr(unsafe.Pointer(&enqueue)))
	return run, enqueue
}

// TestNUMAPlacement checks numa_config: each card's queue threads (created
// while its activations come up) and the threads that enqueue its batches
// run on its node's CPUs, and each node's cards read a copy of the samples
// of their own, which unloading frees.
func TestNUMAPlacement(t *testing.T) {
	t.Parallel()
	acceltest.NeedAffinity(t, 2)
	f := newFakeQAic(t, 2, 16)
	b := newLoaded(t, f, qpc(2, 4, "input x 16", "output y 16"),
		map[string]string{"numa_config": "0:0&1:1", "batch_size": "2", "set_size": "1"})
	p := programOf(t, b)
	require.Len(t, p.samples.data, 2, "one replica per node")
	require.NoError(t, b.LoadSamples(t.Context(), acceltest.Loaded(acceltest.Seq(8), 16)))
	for i := range uint64(8) {
		a, c := p.samples.data[0][i], p.samples.data[1][i]
		assert.Equal(t, acceltest.SampleBytes(i, 16), a)
		assert.Equal(t, a, c)
		assert.NotSame(t, &a[0], &c[0], "sample %d: each node has its own copy", i)
	}
	// Two concurrent queries of four batches each: both cards run.
	for range 2 {
		c := acceltest.NewRecorder()
		require.NoError(t, b.Infer(t.Context(), samplesOf(8, 16, false, true), c))
		out, failed, _ := c.Results()
		require.Empty(t, failed)
		for i := range uint64(8) {
			assert.Equal(t, acceltest.SampleBytes(i, 16), out[acceltest.IDBase+i])
		}
	}
	for dev, cpu := range []uint64{1 << 0, 1 << 1} {
		run, enqueue := f.cpus(dev)
		assert.Equal(t, cpu, run, "card %d's queue threads run on its node's CPUs", dev)
		assert.Equal(t, cpu, enqueue, "card %d's batches are enqueued from its node's CPUs", dev)
	}
	require.NoError(t, b.UnloadSamples(t.Context(), acceltest.Seq(4)))
	assert.Len(t, p.samples.regions, 4, "the other half stays loaded")
	require.NoError(t, b.UnloadSamples(t.Context(), []uint64{4, 5, 6, 7}))
	assert.Empty(t, p.samples.regions)
	assert.Empty(t, p.samples.data[1])
}

// TestNUMASamplesOutsideNodes: a card in no node reads the host's bytes.
func TestNUMASamplesOutsideNodes(t *testing.T) {
	t.Parallel()
	acceltest.NeedAffinity(t, 1)
	f := newFakeQAic(t, 2, 16)
	b := newLoaded(t, f, qpc(1, 4, "input x 4", "output y 4"), map[string]string{"numa_config": "1:0"})
	p := programOf(t, b)
	loaded := acceltest.Loaded(acceltest.Seq(2), 4)
	require.NoError(t, b.LoadSamples(t.Context(), loaded))
	require.Len(t, p.samples.data, 2)
	assert.Same(t, &loaded[1].Data[0], &p.samples.data[p.devices[0].replica][1][0], "card 0 is in no node")
	assert.NotSame(t, &loaded[1].Data[0], &p.samples.data[p.devices[1].replica][1][0], "card 1 has its node's copy")
	require.NoError(t, b.LoadSamples(t.Context(), loaded[:1]), "loaded again")
	assert.Len(t, p.samples.regions[0], 1, "the earlier copy is replaced")
}

func TestNUMAConfigErrors(t *testing.T) {
	t.Parallel()
	acceltest.NeedAffinity(t, 1)
	f := newFakeQAic(t, 1, 16)
	b, err := New(f.config())
	require.NoError(t, err)
	t.Cleanup(func() { _ = b.Close() })
	err = b.Load(t.Context(), sdk.Model{Bytes: qpc(1, 4, "input x 4", "output y 4"),
		Options: map[string]string{"numa_config": "0:1000"}})
	require.ErrorContains(t, err, "numa_config: pin the thread to CPUs [1000]")
	assert.Zero(t, f.live().contexts, "nothing is left behind")
}
