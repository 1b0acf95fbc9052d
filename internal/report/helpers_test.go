package report

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// synthTrace writes a LoadGen trace of n samples shaped like a run of the
// scenario, from a fixed seed: Offline one query whose samples complete in
// batches of 64, one every 64 × perSample; Server Poisson arrivals at qps
// with a stall a third of the way in; SingleStream one sample after the
// other; MultiStream queries of eight samples. Latencies are log-normal
// around median (ns).
func synthTrace(scenario string, n int, median, perSample, qps float64) string {
	rng := rand.New(rand.NewPCG(1, 2))
	logNormal := func(median float64) int64 { return int64(median * math.Exp(0.6*rng.NormFloat64())) }
	var b strings.Builder
	b.WriteString(`{"traceEvents":[` + "\n")
	ev := func(id int, tsNS int64, query int, issue, complete int64) {
		ts := 1000 + float64(tsNS)/1e3
		fmt.Fprintf(&b, `{"name":"Sample","cat":"default","ph":"b","pid":7,"id":%d,"ts":%.3f,"args":{"sample_seq":%d,"query_seq":%d,"sample_idx":%d,"issue_start_ns":%d,"complete_ns":%d}},`+"\n",
			id, ts, id, query, id%1000, issue, complete)
		fmt.Fprintf(&b, `{"name":"Sample","cat":"default","ph":"e", "pid":7,"id":%d,"ts":%.3f},`+"\n", id, ts+float64(complete)/1e3)
	}
	var t int64
	switch scenario {
	case "Offline":
		const batch = 64
		for i := range n {
			done := int64(float64(i/batch+1)*batch*perSample) + logNormal(perSample)
			ev(i, 0, 0, 180, done)
		}
	case "Server":
		for i := range n {
			t += int64(rng.ExpFloat64() * 1e9 / qps)
			lat, issue := logNormal(median), int64(2_000+rng.IntN(3_000))
			if i > n/3 && i < n/3+30 {
				issue += 50_000_000 // a stall: the queries behind it are issued late
				lat += issue
			}
			ev(i, t, i, issue, lat)
		}
	case "MultiStream":
		for q := range n / 8 {
			worst := int64(0)
			for s := range 8 {
				lat := logNormal(median)
				worst = max(worst, lat)
				ev(q*8+s, t, q, 900, lat)
			}
			t += worst + 10_000
		}
	default:
		for i := range n {
			lat := logNormal(median)
			ev(i, t, i, 700, lat)
			t += lat + 5_000
		}
	}
	b.WriteString(`{"name":"LastTrace"}` + "\n],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":{\n\"ts\":1.000,\n\"version\":\"MLPerf LoadGen v1.0\"\n}\n}\n")
	return b.String()
}

// fixture copies testdata/runs/name into a new directory called name
// and, when traced, adds a synthetic trace of the run's scenario.
func fixture(t *testing.T, name, scenario string, traced bool) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.MkdirAll(dir, 0o755))
	src := filepath.Join("testdata", "runs", name)
	es, err := os.ReadDir(src)
	require.NoError(t, err)
	for _, e := range es {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, e.Name()), b, 0o644))
	}
	if traced {
		// The trace follows the detail log: its rate, its median latency.
		r, err := Load(dir, nil)
		require.NoError(t, err)
		n := map[string]int{"Offline": 2000, "Server": 1500, "SingleStream": 600, "MultiStream": 2400}[scenario]
		rate, _ := r.num("result_samples_per_second")
		qps, _ := r.num("effective_target_qps")
		median, _ := r.num("result_50.00_percentile_latency_ns")
		if scenario == "MultiStream" {
			median, _ = r.num("result_50.00_percentile_per_query_latency_ns")
		}
		trace := synthTrace(scenario, n, median, 1e9/max(rate, 1), qps)
		require.NoError(t, os.WriteFile(filepath.Join(dir, TraceFile), []byte(trace), 0o644))
	}
	return dir
}

// loadFixture loads fixture(t, name, scenario, traced).
func loadFixture(t *testing.T, name, scenario string, traced bool) *Run {
	t.Helper()
	r, err := Load(fixture(t, name, scenario, traced), nil)
	require.NoError(t, err)
	require.Equal(t, scenario, r.Scenario(), "fixture %s", name)
	return r
}

// golden compares got with testdata/name, rewriting it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		require.NoError(t, os.WriteFile(path, got, 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run go test ./internal/report -update")
	require.Equal(t, string(want), string(got), "%s differs: if the change is meant, go test ./internal/report -update", path)
}
