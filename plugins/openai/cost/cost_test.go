package cost

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/plugins/openai/openaitest"
)

// serveEnv makes the test binary, run again by [cannedURL], the canned
// server's process.
const serveEnv = "OPENAI_COST_CANNED_SERVER"

func TestMain(m *testing.M) {
	if os.Getenv(serveEnv) == "1" {
		if err := openaitest.ServeChild(context.Background(), openaitest.Behavior{}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

var canned struct {
	once sync.Once
	srv  *openaitest.Child // ends with this process: its stdin closes
	err  error
}

// cannedURL starts the canned server in a process of its own (this test
// binary again), once.
func cannedURL(tb testing.TB) string {
	tb.Helper()
	canned.once.Do(func() {
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), serveEnv+"=1")
		canned.srv, canned.err = openaitest.StartChild(cmd)
	})
	require.NoError(tb, canned.err)
	return canned.srv.URL
}

// TestRun: a small run measures every figure of both clients, the
// plugin's first tokens matched request by request to the server's
// first frames, and the table has a row for each.
func TestRun(t *testing.T) {
	t.Parallel()
	res, err := Run(t.Context(), Config{URL: cannedURL(t), Dir: t.TempDir(), Serial: 40, Rounds: 2, Offline: 80, Workers: 4,
		StartRate: 200, Step: 100 * time.Millisecond, MaxSamples: 100})
	require.NoError(t, err)
	if floorAvailable {
		require.NotNil(t, res.Floor, "the floor is measured on Linux")
		assert.Equal(t, 40, res.Floor.Stream.n)
		assert.Equal(t, 40, res.Floor.Whole.n)
		assert.Equal(t, 10, res.Floor.Long.n)
		assert.Positive(t, res.Floor.Stream.wall)
		assert.Zero(t, res.Floor.Offline.n, "the floor serves requests one at a time only")
		assert.Positive(t, res.Floor.SerialTTFT[1])
		assert.Positive(t, res.Floor.PacedTTFT[1])
	}
	for name, f := range map[string]Figures{"plugin": res.Plugin, "net/http": res.HTTP} {
		assert.Equal(t, 40, f.Stream.n, name)
		assert.Equal(t, 40, f.Whole.n, name)
		assert.Equal(t, 10, f.Long.n, name, "2 rounds of 20/4")
		assert.Equal(t, 80, f.Offline.n, name)
		assert.Positive(t, f.Stream.wall, name)
		// The server stamps its first frame once written, so a first
		// token read on the other core may come a little before it; a
		// p99 does not.
		assert.Positive(t, f.SerialTTFT[1], name)
		assert.LessOrEqual(t, f.SerialTTFT[0], f.SerialTTFT[1], name)
		assert.Positive(t, f.PacedTTFT[1], name)
		assert.LessOrEqual(t, f.PacedTTFT[0], f.PacedTTFT[1], name)
		if f.ServerRate > 0 { // a step is kept up with unless the machine is swamped
			assert.Equal(t, int(f.ServerRate*0.1), f.Server.n, name)
			ttft := f.TTFT[f.ServerRate]
			assert.Positive(t, ttft[1], name)
			assert.LessOrEqual(t, ttft[0], ttft[1], name)
		}
	}
	var b strings.Builder
	require.NoError(t, res.Table(&b))
	assert.Equal(t, 2+18, strings.Count(b.String(), "\n"))
	assert.Contains(t, b.String(), "| CPU per SSE frame (256-token streams less 16-token, per frame) |")
	if floorAvailable {
		assert.NotContains(t, firstRow(b.String()), "–", "the serial rows carry the floor")
	}
}

// firstRow is the table's first row of figures.
func firstRow(table string) string { return strings.Split(table, "\n")[2] }

// TestTableWithoutFloor: where the floor was not measured its columns
// hold dashes, and every row has the same cells.
func TestTableWithoutFloor(t *testing.T) {
	t.Parallel()
	r := Result{Config: Config{Tokens: 16, LongTokens: 256, StartRate: 1000, Step: time.Second}}
	r.Plugin.Stream = spent{n: 10, wall: 3000, cpu: 1000}
	r.HTTP.Stream = spent{n: 10, wall: 4000, cpu: 2000}
	var b strings.Builder
	require.NoError(t, r.Table(&b))
	assert.Equal(t, "| CPU per streamed request (16 tokens, 18 frames), one at a time | 0.1 µs | 0.2 µs | 0.50 | – | – |", firstRow(b.String()))
	for _, line := range strings.Split(strings.TrimSpace(b.String()), "\n") {
		assert.Equal(t, 7, strings.Count(line, "|"), line)
	}
	r.Floor = &Figures{Stream: spent{n: 10, wall: 2000, cpu: 500}}
	b.Reset()
	require.NoError(t, r.Table(&b))
	assert.Equal(t, "| CPU per streamed request (16 tokens, 18 frames), one at a time | 0.1 µs | 0.2 µs | 0.50 | 0.1 µs | 2.00 |", firstRow(b.String()))
}

// TestMedian: the median round's CPU and wall per request, apart, over
// every round's requests.
func TestMedian(t *testing.T) {
	t.Parallel()
	got := median([]spent{{n: 10, wall: 100, cpu: 50}, {n: 10, wall: 300, cpu: 10}, {n: 20, wall: 400, cpu: 600}})
	assert.Equal(t, spent{n: 40, wall: 40 * 20, cpu: 40 * 5}, got)
}

// TestTTFT: first tokens are matched to the server's log by the
// prompt's last id; a request missing on either side is an error.
func TestTTFT(t *testing.T) {
	t.Parallel()
	log := []openaitest.LogEntry{
		{Body: `{"prompt":[1,1]}`, FirstFrame: 1000},
		{Body: `{"prompt":[1,0]}`, FirstFrame: 2000},
	}
	got, err := delays(log, []int64{2030, 1050})
	require.NoError(t, err)
	assert.Equal(t, []time.Duration{50, 30}, got, "in the log's order")
	assert.Equal(t, [2]time.Duration{30, 50}, percentiles(got))
	_, err = delays(log, []int64{0, 1010})
	require.ErrorContains(t, err, "request 0 has no first token")
	_, err = delays(log[:1], []int64{2030, 1010})
	require.ErrorContains(t, err, "logged 1 requests of 2")
	_, err = delays([]openaitest.LogEntry{{Body: `{"messages":[]}`, FirstFrame: 1}}, []int64{1})
	require.ErrorContains(t, err, "a body not of this run")
}

// TestPercentiles: p50 and p99 by rank, the nearest rank above; none of
// an empty set.
func TestPercentiles(t *testing.T) {
	t.Parallel()
	d := make([]time.Duration, 200)
	for i := range d {
		d[i] = time.Duration(200 - i)
	}
	assert.Equal(t, [2]time.Duration{100, 198}, percentiles(d))
	assert.Equal(t, [2]time.Duration{7, 7}, percentiles([]time.Duration{7}))
	assert.Zero(t, percentiles(nil))
}

// TestPluginOptions: more of the plugin's options reach it; one the run
// sets, or one the plugin does not know, is refused with its name.
func TestPluginOptions(t *testing.T) {
	t.Parallel()
	url := cannedURL(t)
	tok := t.TempDir() + "/tokenizer.json"
	require.NoError(t, openaitest.WriteTokenizer(tok, openaitest.DefaultPieces()))
	_, err := newPlugin(t.Context(), url, tok, true, 16, 1, 1, map[string]string{"stream": "false"})
	require.ErrorContains(t, err, `option "stream" is the run's own`)
	_, err = newPlugin(t.Context(), url, tok, true, 16, 1, 1, map[string]string{"nosuch": "1"})
	require.ErrorContains(t, err, "nosuch")
	c, err := newPlugin(t.Context(), url, tok, true, 16, 1, 1, map[string]string{"stall_timeout": "0s", "first_byte_timeout": "0s"})
	require.NoError(t, err)
	defer c.close()
	firsts := make([]int64, 1)
	require.NoError(t, c.do(t.Context(), 0, firsts))
	assert.Positive(t, firsts[0])
}

// BenchmarkClient is one request against the canned server in another
// process, the plugin's, the net/http loop's and the floor's: cpu-µs/op is this
// process's CPU (getrusage) per request, the client's alone. Profile
// with -cpuprofile.
func BenchmarkClient(b *testing.B) {
	url := cannedURL(b)
	tok := b.TempDir() + "/tokenizer.json"
	require.NoError(b, openaitest.WriteTokenizer(tok, openaitest.DefaultPieces()))
	for _, shape := range []struct {
		name   string
		stream bool
		tokens int
	}{{"stream16", true, 16}, {"whole16", false, 16}, {"stream256", true, 256}} {
		for _, kind := range []string{"plugin", "nethttp", "floor"} {
			b.Run(shape.name+"/"+kind, func(b *testing.B) {
				var c client = newHTTP(url, shape.stream, shape.tokens, 1)
				switch kind {
				case "plugin":
					p, err := newPlugin(b.Context(), url, tok, shape.stream, shape.tokens, 1, 1, nil)
					require.NoError(b, err)
					c = p
				case "floor":
					if !floorAvailable {
						b.Skip("the floor client needs Linux")
					}
					f, err := newFloor(url, shape.stream, shape.tokens)
					require.NoError(b, err)
					c = f
				}
				b.Cleanup(c.close)
				firsts := make([]int64, 1)
				b.ReportAllocs()
				cpu0 := cpuTime()
				for b.Loop() {
					if err := c.do(b.Context(), 0, firsts); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(cpuTime()-cpu0)/1e3/float64(b.N), "cpu-µs/op")
			})
		}
	}
}
