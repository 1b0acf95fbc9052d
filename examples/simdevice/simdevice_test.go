package simdevice_test

import (
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/examples/simdevice"
	"github.com/mlperf-host/mlperf-host/sdk"
	"github.com/mlperf-host/mlperf-host/sdk/sdktest"
)

func TestConformance(t *testing.T) {
	t.Parallel()
	for _, opts := range []map[string]string{nil, {"batch_timeout": "1ms", "max_batch": "4", "slots": "3"}} {
		sdktest.Config{
			Model: sdk.Model{Options: opts},
			Check: sdktest.Echo,
			New:   func() sdk.Backend { return simdevice.New() },
		}.Run(t, simdevice.New())
	}
}

// TestCost: batches on the same slot queue behind each other; each takes
// base + n × per sample.
func TestCost(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		b := simdevice.New()
		require.NoError(t, b.Load(t.Context(), sdk.Model{Options: map[string]string{"slots": "1"}}))
		assert.Equal(t, 328*time.Microsecond, b.Cost(64))
		c := &stamps{}
		t0 := time.Now()
		q := sdk.Query{Samples: []sdk.Sample{{ID: 1}, {ID: 2}}}
		require.NoError(t, b.Submit(t.Context(), q, c))
		require.NoError(t, b.Submit(t.Context(), sdk.Query{Samples: []sdk.Sample{{ID: 3}}}, c))
		time.Sleep(time.Second)
		assert.Equal(t, map[uint64]time.Duration{1: 204 * time.Microsecond, 2: 204 * time.Microsecond, 3: 406 * time.Microsecond},
			c.since(t0))
		batches, samples := b.Stats()
		assert.Equal(t, [2]int{2, 3}, [2]int{batches, samples})
	})
}

type stamps struct {
	mu sync.Mutex
	at map[uint64]time.Time
}

func (s *stamps) Complete(id uint64, _ []byte, _ int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.at == nil {
		s.at = map[uint64]time.Time{}
	}
	s.at[id] = time.Now()
}
func (s *stamps) FirstToken(uint64, []byte) {}
func (s *stamps) Fail(uint64, error)        {}
func (s *stamps) since(t0 time.Time) map[uint64]time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[uint64]time.Duration{}
	for id, at := range s.at {
		out[id] = at.Sub(t0)
	}
	return out
}
