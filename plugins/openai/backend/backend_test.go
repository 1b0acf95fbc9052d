package backend

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/internal/testcerts"
	"github.com/mlperf-host/mlperf-host/plugins/openai/openaitest"
	"github.com/mlperf-host/mlperf-host/sdk"
)

// recorder is a Completer that keeps what the backend reported.
type recorder struct {
	mu     sync.Mutex
	first  map[uint64][]int32
	out    map[uint64][]int32
	n      map[uint64]int64
	failed map[uint64]error
	order  []string // "first", "complete" per call
	// The bytes as completed, for text responses.
	rawFirst, raw map[uint64][]byte
}

func newRecorder() *recorder {
	return &recorder{first: map[uint64][]int32{}, out: map[uint64][]int32{}, n: map[uint64]int64{}, failed: map[uint64]error{},
		rawFirst: map[uint64][]byte{}, raw: map[uint64][]byte{}}
}

func ids(b []byte) []int32 {
	out := make([]int32, len(b)/4)
	for i := range out {
		out[i] = int32(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

func (r *recorder) Complete(id uint64, data []byte, n int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.out[id], r.n[id], r.raw[id] = ids(data), n, data
	r.order = append(r.order, "complete")
}

func (r *recorder) FirstToken(id uint64, data []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.first[id], r.rawFirst[id] = ids(data), data
	r.order = append(r.order, "first")
}

func (r *recorder) Fail(id uint64, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failed[id] = err
}

// prompt is the test prompt: token ids 1 20 30 as a sample's bytes.
var prompt = []int32{1, 20, 30}

func promptBytes() []byte { return int32Bytes(nil, prompt) }

// start starts a canned server with bh and loads a backend against it
// with opts (the tokenizer and the short timeouts added).
func start(t *testing.T, bh openaitest.Behavior, opts map[string]string) (*Backend, *openaitest.Server) {
	t.Helper()
	srv, err := openaitest.Start(t.Context(), bh)
	require.NoError(t, err)
	t.Cleanup(func() { srv.Close() })
	b := loadAt(t, opts, srv.URL())
	return b, srv
}

func loadAt(t *testing.T, opts map[string]string, urls string) *Backend {
	t.Helper()
	tok := filepath.Join(t.TempDir(), "tokenizer.json")
	require.NoError(t, openaitest.WriteTokenizer(tok, openaitest.DefaultPieces()))
	all := map[string]string{"endpoints": urls, "tokenizer": tok, "stall_timeout": "2s", "ready_timeout": "5s", "warmup": "0"}
	for k, v := range opts {
		all[k] = v
	}
	b := New(func(string) (string, bool) { return "", false })
	require.NoError(t, b.Load(t.Context(), sdk.Model{Options: all}))
	t.Cleanup(func() { b.Close() })
	require.NoError(t, b.LoadSamples(t.Context(), []sdk.LoadedSample{{Index: 0, Data: promptBytes()}}))
	return b
}

func infer(t *testing.T, b *Backend, id uint64) *recorder {
	t.Helper()
	r := newRecorder()
	require.NoError(t, b.Infer(t.Context(), sdk.Query{Samples: []sdk.Sample{{ID: id, Index: 0}}}, r))
	return r
}

// TestReplies: every API, streamed or not, well behaved or with a
// server's quirks, reports the canned completion's ids, its count and
// its first token.
func TestReplies(t *testing.T) {
	t.Parallel()
	const n = 7
	pieces := openaitest.DefaultPieces()
	textSeed := len(pieces[20] + pieces[30]) // a text prompt's seed: its length
	tests := []struct {
		name string
		bh   openaitest.Behavior
		opts map[string]string
		seed int
	}{
		{name: "completions", opts: map[string]string{}, seed: 30},
		{name: "completions not streamed", opts: map[string]string{"stream": "false"}, seed: 30},
		{name: "completions split at every byte", bh: openaitest.Behavior{SplitBytes: true}, seed: 30},
		{name: "completions usage zero but last", bh: openaitest.Behavior{ZeroUsage: true}, seed: 30},
		{name: "completions server ids", bh: openaitest.Behavior{TokenIDs: true}, opts: map[string]string{"token_ids": "server"}, seed: 30},
		{name: "completions text prompt", opts: map[string]string{"prompt": "text"}, seed: textSeed},
		{name: "chat", opts: map[string]string{"api": "chat"}, seed: textSeed},
		{name: "chat role frame split", bh: openaitest.Behavior{RoleFrame: true, SplitBytes: true}, opts: map[string]string{"api": "chat"}, seed: textSeed},
		// The reasoning is output too: the first token is the first
		// reasoning token.
		{name: "chat reasoning", bh: openaitest.Behavior{Reasoning: 3, RoleFrame: true}, opts: map[string]string{"api": "chat"}, seed: textSeed},
		{name: "chat reasoning not streamed", bh: openaitest.Behavior{Reasoning: 3}, opts: map[string]string{"api": "chat", "stream": "false"}, seed: textSeed},
		{name: "sglang", opts: map[string]string{"api": "sglang"}, seed: 30},
		{name: "sglang not streamed", opts: map[string]string{"api": "sglang", "stream": "false"}, seed: 30},
		{name: "sglang split", bh: openaitest.Behavior{SplitBytes: true}, opts: map[string]string{"api": "sglang"}, seed: 30},
		{name: "slow start", bh: openaitest.Behavior{SlowStart: 50 * time.Millisecond}, seed: 30},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.bh.Tokens = n
			b, _ := start(t, tt.bh, tt.opts)
			want := openaitest.Completion(tt.seed, n, len(pieces))
			for id := range uint64(3) { // the connection is kept alive between requests
				r := infer(t, b, id)
				require.Empty(t, r.failed)
				assert.Equal(t, want, r.out[id])
				assert.Equal(t, int64(n), r.n[id])
				assert.Equal(t, want[:1], r.first[id])
			}
			assert.Equal(t, []string{"first", "complete"}, infer(t, b, 9).order)
		})
	}
}

// TestFailures: each way a server breaks fails the sample with the
// endpoint named and the cause, and nothing is completed.
func TestFailures(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		bh   openaitest.Behavior
		opts map[string]string
		want string
	}{
		{name: "5xx", bh: openaitest.Behavior{Status: 503}, want: "HTTP 503: canned failure"},
		{name: "error in the stream", bh: openaitest.Behavior{ErrorAt: 2}, want: "error in the stream: canned error in the stream"},
		{name: "reset", bh: openaitest.Behavior{ResetAt: 3}, want: "connection"},
		{name: "stall", bh: openaitest.Behavior{StallAt: 2}, opts: map[string]string{"stall_timeout": "100ms"}, want: "stream stalled: no data for 100ms"},
		{name: "slow first byte", bh: openaitest.Behavior{SlowStart: time.Second}, opts: map[string]string{"first_byte_timeout": "100ms"}, want: "no response within 100ms"},
		{name: "garbage", bh: openaitest.Behavior{Garbage: 2}, want: "malformed response"},
		{name: "no server ids", opts: map[string]string{"token_ids": "server"}, want: "the server sent no token ids"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b, srv := start(t, tt.bh, tt.opts)
			r := infer(t, b, 5)
			require.Contains(t, r.failed, uint64(5))
			assert.Contains(t, r.failed[5].Error(), "endpoint "+srv.URL()+": ")
			assert.Contains(t, r.failed[5].Error(), tt.want)
			assert.Empty(t, r.out)
			st := b.Stats()
			require.Len(t, st, 1)
			assert.Equal(t, int64(1), st[0].Failed)
		})
	}
}

// TestCancel: the end of the context ends a request waiting on a
// stalled stream.
func TestCancel(t *testing.T) {
	t.Parallel()
	b, _ := start(t, openaitest.Behavior{StallAt: 2}, map[string]string{"stall_timeout": "1h"})
	ctx, cancel := context.WithCancel(t.Context())
	r := newRecorder()
	done := make(chan error, 1)
	go func() { done <- b.Infer(ctx, sdk.Query{Samples: []sdk.Sample{{ID: 1, Index: 0}}}, r) }()
	require.Eventually(t, func() bool { r.mu.Lock(); defer r.mu.Unlock(); return len(r.first) == 1 }, 10*time.Second, time.Millisecond,
		"the first frame arrives before the stall")
	cancel()
	require.NoError(t, <-done)
	require.Contains(t, r.failed, uint64(1))
	assert.ErrorIs(t, r.failed[1], context.Canceled)
}

// TestConnectionReuse: requests one after another share one keep-alive
// connection (an idle one is taken before another is dialled), and
// requests at once open no more than connections allows.
func TestConnectionReuse(t *testing.T) {
	t.Parallel()
	b, srv := start(t, openaitest.Behavior{Tokens: 3}, map[string]string{"connections": "2", "concurrency": "8"})
	base := srv.Accepted() // the readiness probe's
	for id := range uint64(5) {
		require.Empty(t, infer(t, b, id).failed)
	}
	assert.Equal(t, base+1, srv.Accepted())
	var wg sync.WaitGroup
	r := newRecorder()
	for id := range uint64(8) {
		wg.Go(func() {
			assert.NoError(t, b.Infer(t.Context(), sdk.Query{Samples: []sdk.Sample{{ID: id, Index: 0}}}, r))
		})
	}
	wg.Wait()
	assert.Empty(t, r.failed)
	assert.Len(t, r.out, 8)
	assert.LessOrEqual(t, srv.Accepted(), base+2)
}

// TestLeastOutstanding: requests go to the endpoint with the fewest in
// flight; with equal counts, in turn.
func TestLeastOutstanding(t *testing.T) {
	t.Parallel()
	eps := []*endpoint{{url: "a"}, {url: "b"}, {url: "c"}}
	var turn struct{ n atomic.Uint64 }
	got := map[string]int{}
	for range 6 {
		got[pick(eps, &turn.n).url]++
	}
	assert.Equal(t, map[string]int{"a": 2, "b": 2, "c": 2}, got)
	eps[0].outstanding.Add(-2)
	eps[2].outstanding.Add(5)
	assert.Equal(t, "a", pick(eps, &turn.n).url)
	assert.Equal(t, "a", pick(eps, &turn.n).url, "a has 1 outstanding, b 2")
}

// TestReadiness: Load waits for a server that is loading, and names the
// endpoint that never comes up.
func TestReadiness(t *testing.T) {
	t.Parallel()
	srv, err := openaitest.Start(t.Context(), openaitest.Behavior{NotReadyFor: 200 * time.Millisecond})
	require.NoError(t, err)
	t.Cleanup(func() { srv.Close() })
	b := loadAt(t, nil, srv.URL())
	assert.Equal(t, "canned", b.model, "the model is the first /v1/models lists")

	dead, err := openaitest.Start(t.Context(), openaitest.Behavior{})
	require.NoError(t, err)
	deadURL := dead.URL()
	require.NoError(t, dead.Close())
	nb := New(func(string) (string, bool) { return "", false })
	err = nb.Load(t.Context(), sdk.Model{Options: map[string]string{"endpoints": srv.URL() + "," + deadURL, "token_ids": "server", "ready_timeout": "300ms"}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), fmt.Sprintf("endpoint %s is not ready after 300ms", deadURL))
}

// TestAPIKey: the key is read from the variable named, sent as a bearer
// token, and a missing variable is an error naming it, not the key.
func TestAPIKey(t *testing.T) {
	t.Parallel()
	srv, err := openaitest.Start(t.Context(), openaitest.Behavior{Authorization: "Bearer sekrit", Tokens: 3})
	require.NoError(t, err)
	t.Cleanup(func() { srv.Close() })
	b := New(func(k string) (string, bool) { return map[string]string{"KEY": "sekrit"}[k], k == "KEY" })
	opts := map[string]string{"endpoints": srv.URL(), "token_ids": "server", "api": "sglang", "api_key_env": "KEY", "ready_timeout": "2s"}
	require.NoError(t, b.Load(t.Context(), sdk.Model{Options: opts}), "the readiness probe carries the key")
	t.Cleanup(func() { b.Close() })
	require.NoError(t, b.LoadSamples(t.Context(), []sdk.LoadedSample{{Index: 0, Data: promptBytes()}}))
	r := infer(t, b, 1)
	assert.Empty(t, r.failed, "requests carry the key")
	assert.Len(t, r.out[1], 3)
	opts["api_key_env"] = "NOPE"
	err = b.Load(t.Context(), sdk.Model{Options: opts})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "NOPE is not set")
}

// TestGeneration: max_tokens and min_tokens default to the benchmark's
// reference settings (gpt-oss-120b's differ between accuracy and
// performance), whatever its suffix; options set win.
func TestGeneration(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		benchmark string
		accuracy  bool
		opts      map[string]string
		max, min  int
	}{
		{name: "llama2-70b", benchmark: "llama2-70b-99.9", max: 1024, min: 1},
		{name: "llama3.1-8b", benchmark: "llama3.1-8b", max: 128, min: 1},
		{name: "llama3.1-8b interactive", benchmark: "llama3_1-8b-interactive", max: 128, min: 1},
		{name: "llama3.1-405b", benchmark: "llama3.1-405b", max: 2000, min: 1},
		{name: "mixtral-8x7b", benchmark: "mixtral-8x7b", max: 1024, min: 2},
		{name: "deepseek-r1", benchmark: "deepseek-r1", max: 20000, min: -1},
		{name: "gpt-oss-120b performance", benchmark: "gpt-oss-120b", max: 10240, min: -1},
		{name: "gpt-oss-120b accuracy", benchmark: "gpt-oss-120b", accuracy: true, max: 32768, min: -1},
		{name: "a benchmark without a reference", benchmark: "bert-99", max: 128, min: -1},
		// No bound at all: the server's default, as the reference sends none.
		{name: "qwen3-vl", benchmark: "qwen3-vl-235b-a22b", max: -1, min: -1},
		{name: "options win", benchmark: "llama2-70b-99", opts: map[string]string{"max_tokens": "7", "min_tokens": "0"}, max: 7, min: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			opts := map[string]string{"token_ids": IDsServer, "api": APISGLang}
			for k, v := range tt.opts {
				opts[k] = v
			}
			c, err := ParseConfig(opts)
			require.NoError(t, err)
			maxTokens, minTokens := c.generation(tt.benchmark, tt.accuracy)
			assert.Equal(t, tt.max, maxTokens)
			assert.Equal(t, tt.min, minTokens)
		})
	}
}

// TestTLS: HTTPS endpoints with the CA named by tls_ca, and mutual TLS
// with tls_cert and tls_key; without them the endpoint is not ready and
// the error says why.
func TestTLS(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ca := testcerts.NewCA(t, dir, "ca")
	srvFiles := ca.Issue(t, dir, "server", time.Now().Add(time.Hour))
	client := ca.Issue(t, dir, "client", time.Now().Add(time.Hour))
	cert, err := tls.LoadX509KeyPair(srvFiles.Cert, srvFiles.Key)
	require.NoError(t, err)
	pem, err := os.ReadFile(ca.Path)
	require.NoError(t, err)
	pool := x509.NewCertPool()
	require.True(t, pool.AppendCertsFromPEM(pem))
	tests := []struct {
		name       string
		clientAuth tls.ClientAuthType
		opts       map[string]string
		want       string // a Load error; "" for requests that work
	}{
		{name: "https", opts: map[string]string{"tls_ca": ca.Path}},
		{name: "mutual", clientAuth: tls.RequireAndVerifyClientCert, opts: map[string]string{"tls_ca": ca.Path, "tls_cert": client.Cert, "tls_key": client.Key}},
		{name: "an unknown CA", want: "certificate"},
		{name: "no client certificate", clientAuth: tls.RequireAndVerifyClientCert, opts: map[string]string{"tls_ca": ca.Path}, want: "certificate required"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, err := openaitest.Start(t.Context(), openaitest.Behavior{Tokens: 3,
				TLS: &tls.Config{Certificates: []tls.Certificate{cert}, ClientAuth: tt.clientAuth, ClientCAs: pool, MinVersion: tls.VersionTLS12}})
			require.NoError(t, err)
			t.Cleanup(func() { srv.Close() })
			require.True(t, strings.HasPrefix(srv.URL(), "https://"))
			opts := map[string]string{"endpoints": srv.URL(), "token_ids": "server", "api": "sglang", "ready_timeout": "2s", "warmup": "0"}
			for k, v := range tt.opts {
				opts[k] = v
			}
			b := New(func(string) (string, bool) { return "", false })
			err = b.Load(t.Context(), sdk.Model{Options: opts})
			if tt.want != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), "endpoint "+srv.URL()+" is not ready")
				assert.Contains(t, err.Error(), tt.want)
				return
			}
			require.NoError(t, err)
			t.Cleanup(func() { b.Close() })
			require.NoError(t, b.LoadSamples(t.Context(), []sdk.LoadedSample{{Index: 0, Data: promptBytes()}}))
			r := infer(t, b, 1)
			assert.Empty(t, r.failed)
			assert.Equal(t, openaitest.Completion(30, 3, len(openaitest.DefaultPieces())), r.out[1])
		})
	}
}
