package host

import (
	"fmt"
	"log/slog"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/abi"
)

// TestProcessSharedRings drives the SDK's echo plugin as a subprocess with
// the shared rings (ABI v1.1) attached and without them: one-sample
// queries waited for one by one, a query larger than the issue ring,
// outputs wanted or not. Every sample completes once with its bytes, and
// after Flush returns every completion of the queries before it has been
// delivered, whichever way it travelled.
func TestProcessSharedRings(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		cfg   Config
		rings bool
	}{
		{name: "rings, polling", rings: true},
		{name: "rings, a doorbell every time", cfg: Config{RingSpin: -1}, rings: true},
		{name: "messages", cfg: Config{DisableSharedRing: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			shm := t.TempDir()
			tc.cfg.SharedMemoryDir = shm
			tc.cfg.Env = []string{"MLPERF_ECHO_MAX_BATCH=64", "MLPERF_ECHO_MAX_IN_FLIGHT=2"}
			b, err := Open(ctx, echoPlugin(t), tc.cfg)
			require.NoError(t, err)
			t.Cleanup(func() { _ = b.Close() })
			assert.Equal(t, tc.rings, b.Info().Capabilities.Has(abi.CapSharedRing) && !tc.cfg.DisableSharedRing)
			rec := newRecorder()
			b.SetHandler(rec)
			require.NoError(t, b.Load(ctx, Model{Bytes: []byte("model")}))
			var samples []Sample
			for i := range 8 {
				samples = append(samples, Sample{Index: uint64(i), Data: fmt.Appendf(nil, "sample %d", i)})
			}
			require.NoError(t, b.LoadSamples(ctx, samples))

			want := map[uint64]string{}
			id := uint64(0)
			issue := func(n int, wantOutput func(i int) bool) {
				recs := make([]abi.IssueRecord, n)
				for i := range recs {
					recs[i] = abi.IssueRecord{ID: id, Index: id % 8}
					want[id] = ""
					if wantOutput(i) {
						recs[i].Flags = abi.FlagWantOutput
						want[id] = fmt.Sprintf("sample %d", id%8)
					}
					id++
				}
				require.NoError(t, b.Issue(ctx, recs))
			}
			for i := range 300 { // one at a time, as SingleStream
				issue(1, func(int) bool { return i%3 == 0 })
				rec.wait(t, len(want))
			}
			issue(3*ringSlots, func(i int) bool { return i%1000 == 0 }) // overflows the issue ring
			for range 50 {
				issue(7, func(int) bool { return false })
			}
			require.NoError(t, b.Flush(ctx))
			rec.mu.Lock()
			got := len(rec.done)
			rec.mu.Unlock()
			require.Equal(t, len(want), got, "every completion is delivered before Flush returns")
			for id, data := range want {
				c, ok := rec.get(id)
				require.True(t, ok)
				require.Equal(t, abi.OK, c.Status)
				require.Equal(t, data, string(c.Data), "sample id %d", id)
			}
			require.Empty(t, rec.dups)

			r := b.(*processBackend).ring
			if tc.rings {
				require.NotNil(t, r)
				assert.True(t, r.active.Load())
				assert.Positive(t, r.issued.Load(), "issue records went through the ring")
				assert.Positive(t, r.completed.Load(), "completions came back through the ring")
				assert.Less(t, r.issued.Load(), int64(len(want)), "a full ring sends the rest as messages")
			} else {
				assert.Nil(t, r)
			}
			files, _ := filepath.Glob(filepath.Join(shm, "mlperf-host-ring-*"))
			assert.Empty(t, files, "the ring file is removed once both sides mapped it")
			require.NoError(t, b.Close())
			require.ErrorIs(t, b.Err(), ErrClosed)
		})
	}
}

// TestProcessSharedRingsFirstTokens: a plugin that reports first tokens
// is offered no shared rings unless SharedRingFirstTokens says so; either
// way every sample's first token comes before its completion.
func TestProcessSharedRingsFirstTokens(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		cfg   Config
		rings bool
	}{
		{name: "messages by default"},
		{name: "rings when asked", cfg: Config{SharedRingFirstTokens: true}, rings: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			tc.cfg.SharedMemoryDir = t.TempDir()
			tc.cfg.Env = []string{"MLPERF_ECHO_MAX_BATCH=8", "MLPERF_ECHO_MAX_IN_FLIGHT=2", "MLPERF_ECHO_FIRST_TOKENS=1"}
			b, err := Open(ctx, echoPlugin(t), tc.cfg)
			require.NoError(t, err)
			t.Cleanup(func() { _ = b.Close() })
			require.True(t, b.Info().Capabilities.Has(abi.CapFirstToken|abi.CapSharedRing), "the echo reports first tokens and can share rings")
			rec := newRecorder()
			b.SetHandler(rec)
			require.NoError(t, b.Load(ctx, Model{Bytes: []byte("model")}))
			require.NoError(t, b.LoadSamples(ctx, []Sample{{Index: 0, Data: []byte("sample")}}))
			for id := range uint64(50) {
				require.NoError(t, b.Issue(ctx, []abi.IssueRecord{{ID: id, Index: 0, Flags: abi.FlagWantOutput}}))
				rec.wait(t, int(id)+1)
			}
			require.NoError(t, b.Flush(ctx))
			rec.mu.Lock()
			assert.Len(t, rec.first, 50, "a first token for every sample")
			assert.Empty(t, rec.early, "no first token after its completion")
			rec.mu.Unlock()
			r := b.(*processBackend).ring
			if !tc.rings {
				assert.Nil(t, r, "no rings offered")
				return
			}
			require.NotNil(t, r)
			assert.True(t, r.active.Load(), "the plugin attached the rings")
			assert.Positive(t, r.issued.Load(), "issue records went through the ring")
			assert.Zero(t, r.completed.Load(), "completions that follow first tokens go by messages")
		})
	}
}

// TestProcessLimitsFollowLoad: a v1.1 plugin's Load options may change
// its limits; Info reports Info's before Load and Load's after.
func TestProcessLimitsFollowLoad(t *testing.T) {
	t.Parallel()
	b, err := Open(t.Context(), echoPlugin(t),
		Config{Env: []string{"MLPERF_ECHO_MAX_BATCH=64", "MLPERF_ECHO_MAX_IN_FLIGHT=2"}})
	require.NoError(t, err)
	t.Cleanup(func() { _ = b.Close() })
	assert.Equal(t, 64, b.Info().MaxBatch)
	assert.Equal(t, 2, b.Info().MaxInFlight)
	require.NoError(t, b.Load(t.Context(), Model{Bytes: []byte("m"), Options: map[string]string{"max_batch": "16", "max_in_flight": "5"}}))
	assert.Equal(t, 16, b.Info().MaxBatch)
	assert.Equal(t, 5, b.Info().MaxInFlight)
}

// TestPushRingFull: with nobody consuming, the issue ring takes chunks
// until it is full; the rest of a chunk is handed back for a message,
// moved to the start of its buffer, and chunks over abi.RingBatchMax
// never go to the ring.
func TestPushRingFull(t *testing.T) {
	t.Parallel()
	r, err := newHostRing(t.TempDir())
	require.NoError(t, err)
	t.Cleanup(func() { _ = r.release(slog.New(slog.DiscardHandler), "x") })
	r.active.Store(true)
	b := &processBackend{ring: r}
	pack := func(first uint64, n int) []byte {
		var buf []byte
		for i := range n {
			buf = abi.AppendIssueRecord(buf, abi.IssueRecord{ID: first + uint64(i)})
		}
		return buf
	}
	big := pack(0, abi.RingBatchMax+1)
	rest, err := b.pushRing(big)
	require.NoError(t, err)
	assert.Len(t, rest, len(big), "a large chunk goes as a message")

	id := uint64(0)
	for range ringSlots/abi.RingBatchMax - 1 {
		rest, err := b.pushRing(pack(id, abi.RingBatchMax))
		require.NoError(t, err)
		require.Empty(t, rest)
		id += abi.RingBatchMax
	}
	rest, err = b.pushRing(pack(id, 40))
	require.NoError(t, err)
	require.Empty(t, rest)
	id += 40
	rest, err = b.pushRing(pack(id, 40)) // 24 slots left
	require.NoError(t, err)
	require.Len(t, rest, 16*abi.IssueRecordSize, "the ring takes what fits")
	recs, err := abi.ParseIssueRecords(rest)
	require.NoError(t, err)
	assert.Equal(t, id+24, recs.At(0).ID, "the rest moved to the start of the buffer")
	assert.Equal(t, int64(ringSlots), r.issued.Load())
	rest, err = b.pushRing(pack(id+40, 1))
	require.NoError(t, err)
	require.Len(t, rest, abi.IssueRecordSize, "a full ring takes nothing")
	assert.Zero(t, b.sendq.len(), "the consumer never slept: no doorbell")
}
