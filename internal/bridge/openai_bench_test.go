package bridge

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/host"
	"github.com/mlperf-host/mlperf-host/host/manifest"
	"github.com/mlperf-host/mlperf-host/internal/dataset"
	"github.com/mlperf-host/mlperf-host/loadgen"
	"github.com/mlperf-host/mlperf-host/plugins/openai/openaitest"
	"github.com/mlperf-host/mlperf-host/sdk/sdktest"
)

// BenchmarkEndToEndOpenAI runs the LoadGen with token latencies, the
// bridge, the host and the openai plugin as a subprocess against the
// canned server in a process of its own (openai-cost serve), streamed
// requests: TTFT as mlperf-host records it (the first token handed to
// the LoadGen, which stamps it) less the server's send time of the first
// frame, request by request (ttft-send-), beside the LoadGen's own TTFT
// from the issue (ttft-). SingleStream sends one request at a time,
// Server Poisson arrivals at 1000/s; replies of one token leave nothing
// to run beside the first token's way to the host, replies of 16 the
// rest of the stream. MLPERF_BENCH_QPS sets the Server rate (1000);
// MLPERF_BENCH_RINGS=on offers the plugin the shared rings, which a
// plugin that reports first tokens is not offered by default.
func BenchmarkEndToEndOpenAI(b *testing.B) {
	qps := 1000.0
	if v := os.Getenv("MLPERF_BENCH_QPS"); v != "" {
		var err error
		qps, err = strconv.ParseFloat(v, 64)
		require.NoError(b, err, "MLPERF_BENCH_QPS")
	}
	cfg := host.Config{SharedRingFirstTokens: os.Getenv("MLPERF_BENCH_RINGS") == "on"}
	srv, err := openaitest.StartChild(exec.Command(sdktest.BuildPlugin(b, "../../plugins/openai/cmd/openai-cost", "openai-cost"), "serve"))
	require.NoError(b, err)
	b.Cleanup(func() { require.NoError(b, srv.Close()) })
	tok := filepath.Join(b.TempDir(), "tokenizer.json")
	require.NoError(b, openaitest.WriteTokenizer(tok, openaitest.DefaultPieces()))
	bin := sdktest.BuildPlugin(b, "../../plugins/openai/cmd/openai", "openai")
	for _, sc := range []struct {
		name string
		tune func(*loadgen.TestSettings)
	}{
		{"SingleStream", func(s *loadgen.TestSettings) {
			s.Scenario = loadgen.SingleStream
			s.MinDuration, s.MinQueryCount = 0, 4000
			s.SingleStreamExpectedLatency = 500 * time.Microsecond
		}},
		{fmt.Sprintf("Server%.0f", qps), func(s *loadgen.TestSettings) {
			s.Scenario = loadgen.Server
			s.ServerTargetQPS = qps
			s.MinDuration, s.MinQueryCount = 2*time.Second, 1
			s.ServerTargetLatency, s.ServerTTFTLatency, s.ServerTPOTLatency = time.Second, time.Second, time.Second
		}},
	} {
		for _, tokens := range []int{1, 16} {
			b.Run(fmt.Sprintf("%s/tokens%d", sc.name, tokens), func(b *testing.B) {
				runOpenAI(b, cfg, srv.URL, bin, tok, tokens, sc.tune)
			})
		}
	}
}

// runOpenAI is one of BenchmarkEndToEndOpenAI's: the plugin opened with
// cfg, replies of tokens tokens, the LoadGen's settings tuned by tune.
func runOpenAI(b *testing.B, cfg host.Config, url, bin, tok string, tokens int, tune func(*loadgen.TestSettings)) {
	be, err := host.Open(b.Context(), host.Plugin{Name: "openai", Kind: manifest.KindProcess, Entry: bin}, cfg)
	require.NoError(b, err)
	b.Cleanup(func() { require.NoError(b, be.Close()) })
	require.NoError(b, be.Load(b.Context(), host.Model{Options: map[string]string{
		"endpoints": url, "tokenizer": tok, "max_tokens": strconv.Itoa(tokens), "warmup": "0", "ready_timeout": "10s", "concurrency": "64"}}))
	st := newFirstStamps(be)
	sut := NewSUT(st, "openai")
	qsl := NewQSL(st, promptSet(b, 1024), 0)
	settings := loadgen.DefaultTestSettings()
	settings.UseTokenLatencies = true
	tune(&settings)
	dir := b.TempDir()
	var (
		delays []time.Duration
		ttft   latencies
	)
	for b.Loop() {
		_, err := openaitest.TakeLog(b.Context(), url) // clear it
		require.NoError(b, err)
		st.reset()
		res, err := loadgen.StartTest(b.Context(), sut, qsl, settings, loadgen.LogSettings{OutDir: dir})
		require.NoError(b, err)
		require.NoError(b, sut.Err())
		require.NotNil(b, res.Performance.FirstToken, "a run with token latencies")
		ttft.add(res.Performance.FirstToken)
		log, err := openaitest.TakeLog(b.Context(), url)
		require.NoError(b, err)
		d, err := st.delays(log)
		require.NoError(b, err)
		delays = append(delays, d...)
	}
	slices.Sort(delays)
	at := func(p float64) float64 {
		return float64(delays[max(0, int(p*float64(len(delays))+0.999999)-1)].Nanoseconds()) / 1e3
	}
	b.ReportMetric(at(0.5), "ttft-send-p50-µs")
	b.ReportMetric(at(0.99), "ttft-send-p99-µs")
	ttft.report(b, "ttft-")
}

// promptSet is n prompts of two token ids, [1, k], as the openai plugin
// reads a sample: little-endian int32s.
func promptSet(tb testing.TB, n int) dataset.Dataset {
	var s [][]byte
	for k := range n {
		s = append(s, binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(nil, 1), uint32(k)))
	}
	d, err := dataset.NewMemory("prompts", dataset.Spec{DType: dataset.Int32, Shape: []int{2}}, s, nil)
	require.NoError(tb, err)
	return d
}

// firstStamps is a backend whose first tokens are stamped, by sample
// index in the order they come, as the LoadGen gets them.
type firstStamps struct {
	host.Backend
	mu sync.Mutex
	// index is each issued sample's index, by id; firsts the first
	// tokens' times (Unix nanoseconds) by index.
	index  map[uint64]uint64
	firsts map[uint64][]int64
}

func newFirstStamps(be host.Backend) *firstStamps {
	s := &firstStamps{Backend: be}
	s.reset()
	return s
}

func (s *firstStamps) reset() {
	s.mu.Lock()
	s.index, s.firsts = map[uint64]uint64{}, map[uint64][]int64{}
	s.mu.Unlock()
}

func (s *firstStamps) Issue(ctx context.Context, recs []abi.IssueRecord) error {
	s.mu.Lock()
	for _, r := range recs {
		s.index[r.ID] = r.Index
	}
	s.mu.Unlock()
	return s.Backend.Issue(ctx, recs)
}

func (s *firstStamps) SetHandler(h host.Handler) { s.Backend.SetHandler(stampingHandler{h, s}) }

// stampingHandler stamps first tokens, then hands them on.
type stampingHandler struct {
	host.Handler
	s *firstStamps
}

func (h stampingHandler) FirstTokens(batch []host.Completion) {
	now := time.Now().UnixNano()
	h.s.mu.Lock()
	for _, c := range batch {
		i := h.s.index[c.ID]
		h.s.firsts[i] = append(h.s.firsts[i], now)
	}
	h.s.mu.Unlock()
	h.Handler.FirstTokens(batch)
}

// delays matches the server's log to the stamps, the n-th request of a
// prompt to the n-th first token of its sample, and returns each first
// token's time less the server's send of the first frame.
func (s *firstStamps) delays(log []openaitest.LogEntry) ([]time.Duration, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	seen := map[uint64]int{}
	var d []time.Duration
	for _, e := range log {
		k, ok := e.Sample()
		if !ok || k < 0 || e.FirstFrame == 0 {
			return nil, fmt.Errorf("a request not of this run, or without a first frame: %.80s", e.Body)
		}
		i := uint64(k)
		n := seen[i]
		seen[i]++
		if n >= len(s.firsts[i]) {
			return nil, fmt.Errorf("sample %d: request %d has no first token", i, n+1)
		}
		d = append(d, time.Duration(s.firsts[i][n]-e.FirstFrame))
	}
	total := 0
	for _, f := range s.firsts {
		total += len(f)
	}
	if total != len(d) {
		return nil, fmt.Errorf("%d first tokens for %d requests the server logged", total, len(d))
	}
	return d, nil
}
