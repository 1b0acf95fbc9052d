package accel

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/sdk"
)

// countingModel counts the calls it gets.
type countingModel struct{ loads, unloads, warmups, infers, stops int }

func (m *countingModel) LoadSamples(context.Context, []sdk.LoadedSample) error { m.loads++; return nil }
func (m *countingModel) UnloadSamples(context.Context, []uint64) error         { m.unloads++; return nil }
func (m *countingModel) Warmup(context.Context) error                          { m.warmups++; return nil }
func (m *countingModel) Infer(context.Context, sdk.Query, sdk.Completer) error {
	m.infers++
	return nil
}
func (m *countingModel) Stop() error { m.stops++; return nil }
func (m *countingModel) SubmissionFacts() sdk.SubmissionFacts {
	return sdk.SubmissionFacts{Framework: "counting", DevicesUsed: []int{0, 1}}
}

var testSentinels = Sentinels{
	NotLoaded: errors.New("not loaded"), Loaded: errors.New("loaded"), Closed: errors.New("closed"),
}

func TestBackendLifecycle(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	b := NewBackend[*countingModel](sdk.Info{Name: "x", MaxInFlight: 2, Devices: []sdk.Device{{ID: 1}}}, testSentinels)
	require.ErrorIs(t, b.Infer(ctx, sdk.Query{}, nil), testSentinels.NotLoaded)
	require.ErrorIs(t, b.Warmup(ctx), testSentinels.NotLoaded)

	boom := errors.New("boom")
	require.ErrorIs(t, b.Load(func() (*countingModel, Limits, error) { return nil, Limits{}, boom }), boom)
	assert.Equal(t, 2, b.Info().MaxInFlight, "a failed Load leaves Info as it was")
	assert.Zero(t, b.SubmissionFacts(), "no facts before Load")

	m := &countingModel{}
	lim := Limits{MaxInFlight: 6, MaxBatch: 64, BatchTimeout: time.Millisecond}
	require.NoError(t, b.Load(func() (*countingModel, Limits, error) { return m, lim, nil }))
	info := b.Info()
	assert.Equal(t, Limits{MaxInFlight: info.MaxInFlight, MaxBatch: info.MaxBatch, BatchTimeout: info.BatchTimeout}, lim)
	assert.Equal(t, "counting", b.SubmissionFacts().Framework)
	// Info lists what start-up found; Load's options may have named another runtime.
	assert.Equal(t, []int{1}, b.SubmissionFacts().DevicesUsed, "only devices Info lists")
	require.ErrorIs(t, b.Load(func() (*countingModel, Limits, error) { return m, lim, nil }), testSentinels.Loaded)
	require.NoError(t, b.LoadSamples(ctx, nil))
	require.NoError(t, b.UnloadSamples(ctx, nil))
	require.NoError(t, b.Warmup(ctx))
	require.NoError(t, b.Infer(ctx, sdk.Query{}, nil))
	require.NoError(t, b.Close())
	require.NoError(t, b.Close(), "Close twice")
	assert.Equal(t, countingModel{loads: 1, unloads: 1, warmups: 1, infers: 1, stops: 1}, *m)
	require.ErrorIs(t, b.Infer(ctx, sdk.Query{}, nil), testSentinels.Closed)
	require.ErrorIs(t, b.Load(func() (*countingModel, Limits, error) { return m, lim, nil }), testSentinels.Closed)
}
