package dlrmv3

import (
	"bytes"
	"encoding/binary"
	"flag"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/internal/accuracy"
)

var update = flag.Bool("update", false, "rewrite testdata/streaming")

// The committed fixture: 20 timestamps (18 training, 2 inference) of 12
// users, an accuracy log of every request and a TEST08 log of some.
const (
	fixtureDir   = "testdata/streaming"
	fixtureTS    = 20
	fixtureUsers = 12
	fixtureSeed  = 3
)

// predict is the fixture's model: a probability from the candidate's id
// and the user's history length.
func predict(id int64, history int) float32 {
	return float32(1 / (1 + math.Exp(-float64(id%1000-500)/200-float64(history)/10+1)))
}

// fixtureResults answers every sample of s.
func fixtureResults(t *testing.T, s *Streaming) []Result {
	t.Helper()
	return resultsOf(t, s, predict)
}

// resultsOf answers every sample of s with model's predictions.
func resultsOf(t *testing.T, s *Streaming, model func(id int64, history int) float32) []Result {
	t.Helper()
	var out []Result
	for i := range s.Len() {
		shapes, err := s.Shapes(i)
		require.NoError(t, err)
		buf := make([]byte, Schema.SampleBytes(shapes))
		require.NoError(t, s.ReadSample(i, buf))
		ls, _ := Schema.Layout(shapes)
		i64 := func(k, j int) int64 { return int64(binary.LittleEndian.Uint64(buf[ls[k].Offset+8*j:])) }
		r := Result{TS: int(i64(0, 0)), Query: int(i64(0, 1))}
		for j := range shapes[4][0] {
			rating := floats(buf[ls[5].Offset:])[j]
			r.Predictions = append(r.Predictions, model(i64(4, j), shapes[2][0]))
			r.Labels = append(r.Labels, b2f(rating >= 3.5))
			r.Weights = append(r.Weights, 1)
		}
		out = append(out, r)
	}
	return out
}

func writeFixture(t *testing.T, dir string) {
	t.Helper()
	require.NoError(t, WriteStreaming(filepath.Join(dir, SampledDir), fixtureTS, GenerateUsers(fixtureSeed, fixtureUsers, fixtureTS)))
	s, err := OpenStreaming(filepath.Join(dir, SampledDir))
	require.NoError(t, err)
	results := fixtureResults(t, s)
	var acc, perf []accuracy.Entry
	for i, r := range results {
		acc = append(acc, accuracy.Entry{SeqID: uint64(i), QSLIdx: uint64(i), Data: AppendResult(nil, r)})
		if i%2 == 0 {
			p := AppendResult(nil, r)[:4*(2+len(r.Predictions))]
			perf = append(perf, accuracy.Entry{SeqID: uint64(len(perf)), QSLIdx: uint64(i), Data: p})
		}
	}
	for name, entries := range map[string][]accuracy.Entry{"mlperf_log_accuracy.json": acc, "test08_log_accuracy.json": perf} {
		var b bytes.Buffer
		require.NoError(t, accuracy.WriteLog(&b, entries))
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), b.Bytes(), 0o644))
	}
}

// TestFixtureGolden regenerates the committed fixture (go test -update
// rewrites it).
func TestFixtureGolden(t *testing.T) {
	t.Parallel()
	if *update {
		require.NoError(t, os.RemoveAll(fixtureDir))
		writeFixture(t, fixtureDir)
	}
	dir := t.TempDir()
	writeFixture(t, dir)
	for _, name := range []string{"sampled_data/0.csv", "sampled_data/offset.csv", "sampled_data/requests_per_ts.csv",
		"sampled_data/requests_per_ts_offset.csv", "sampled_data/users_cumsum_per_ts.csv", "mlperf_log_accuracy.json", "test08_log_accuracy.json"} {
		want, err := os.ReadFile(filepath.Join(fixtureDir, name))
		require.NoError(t, err)
		got, err := os.ReadFile(filepath.Join(dir, name))
		require.NoError(t, err)
		assert.Equal(t, string(want), string(got), name)
	}
}
