package trt

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/plugins/internal/accel/acceltest"
	"github.com/mlperf-host/mlperf-host/sdk"
)

// writePlans writes fake plans into a directory and returns their paths.
func writePlans(t *testing.T, plans ...[]byte) []string {
	t.Helper()
	dir := t.TempDir()
	var out []string
	for i, p := range plans {
		path := filepath.Join(dir, string(rune('a'+i))+".plan")
		require.NoError(t, os.WriteFile(path, p, 0o600))
		out = append(out, path)
	}
	return out
}

// TestEnginesPerBatchSize: with several engines of one model, each batch
// runs on the smallest that takes it (a static batch-1 engine, a static
// batch-8 one padding 5 samples to 8, the dynamic one above), every lane
// has a context of each, and warm-up captures each engine's graphs for the
// batch sizes it gets.
func TestEnginesPerBatchSize(t *testing.T) {
	t.Parallel()
	f := newFake(t, 1, 1<<26)
	extra := writePlans(t, fakePlan("input x uint8 8x16", "output y uint8 8x16"),
		fakePlan("input x uint8 1x16", "output y uint8 1x16"))
	plan := fakePlan("input x uint8 -1x16 max=12", "output y uint8 -1x16")
	engines := extra[0] + ":" + extra[1]
	b := newBackend(t, f, plan, map[string]string{"engines": engines})
	live := f.live()
	assert.Equal(t, int32(1+1+2), live.engines, "a static engine is shared by the lanes; the one-profile dynamic one has a copy per lane")
	assert.Equal(t, int32(2*3), live.contexts, "two lanes, a context of each engine")
	for _, n := range []int{1, 5, 8, 9, 12} {
		checkEcho(t, b, acceltest.Seq(n), 16, true)
	}
	assert.Equal(t, []int{1, 8, 8, 9, 12}, f.batches(), "the rows each batch ran")
	assert.Equal(t, 12, b.Info().MaxBatch)
	require.NoError(t, b.Close())

	b = newBackend(t, f, plan, map[string]string{"engines": engines, "cuda_graphs": "true"})
	require.NoError(t, b.Warmup(t.Context()))
	assert.Equal(t, int32(2*(1+1+4)), f.live().graphExecs, "per lane: b1, b8, and 9..12 on the dynamic engine")
	checkEcho(t, b, acceltest.Seq(5), 16, true)
}

func TestEnginesAgree(t *testing.T) {
	t.Parallel()
	main := fakePlan("input x uint8 -1x16 max=12", "output y uint8 -1x16")
	tests := []struct {
		name    string
		extra   []byte
		opts    map[string]string
		wantErr string
		// wantEngines counts the engines loaded: those a batch of at
		// most batch_size runs on.
		wantEngines int32
	}{
		{name: "another input", extra: fakePlan("input z uint8 1x16", "output y uint8 1x16"),
			wantErr: `engine 0 and engine 1 are not of one model: tensor "x" uint8[16] against "z" uint8[16]`},
		{name: "another row", extra: fakePlan("input x uint8 1x8", "output y uint8 1x16"), wantErr: "not of one model"},
		{name: "another output count", extra: fakePlan("input x uint8 1x16", "output y uint8 1x16", "output w uint8 1x4"),
			wantErr: "1 and 2 tensors"},
		{name: "batch_size within the small engine", extra: fakePlan("input x uint8 4x16", "output y uint8 4x16"),
			opts: map[string]string{"batch_size": "4"}, wantEngines: 1},
		{name: "batch_size above every engine", extra: fakePlan("input x uint8 4x16", "output y uint8 4x16"),
			opts: map[string]string{"batch_size": "13"}, wantErr: "batch_size 13 exceeds the engine's maximum batch 12"},
	}
	// One fake for every case, one backend after the other: the live
	// engines counted are the fake's.
	f := newFake(t, 1, 1<<26)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := New(f.config())
			require.NoError(t, err)
			defer func() { require.NoError(t, b.Close()) }()
			opts := map[string]string{"engines": writePlans(t, tt.extra)[0]}
			for k, v := range tt.opts {
				opts[k] = v
			}
			err = b.Load(t.Context(), sdk.Model{Bytes: main, Options: opts})
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				assert.Zero(t, f.live().engines, "nothing left deserialized")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.wantEngines, f.live().engines)
			checkEcho(t, b, acceltest.Seq(4), 16, true)
		})
	}
}
