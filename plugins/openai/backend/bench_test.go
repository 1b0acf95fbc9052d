package backend

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/plugins/openai/openaitest"
	"github.com/mlperf-host/mlperf-host/sdk"
)

// BenchmarkRequest is one request of 16 tokens against the canned
// server on loopback, streamed and not: the plugin's client against a
// plain net/http loop reading the same replies (bufio lines for SSE,
// encoding-free), interleaved in one run. The server runs in the same
// process, so ns/op holds its cost too; compare the rows as ratios.
func BenchmarkRequest(b *testing.B) {
	for _, stream := range []bool{true, false} {
		name := map[bool]string{true: "stream", false: "whole"}[stream]
		srv, err := openaitest.Start(b.Context(), openaitest.Behavior{Tokens: 16})
		require.NoError(b, err)
		b.Cleanup(func() { srv.Close() })
		b.Run(name+"/plugin", func(b *testing.B) {
			be := benchBackend(b, srv.URL(), stream)
			r := newRecorder()
			q := sdk.Query{Samples: []sdk.Sample{{ID: 1, Index: 0}}}
			b.ReportAllocs()
			for b.Loop() {
				if err := be.Infer(b.Context(), q, r); err != nil || len(r.failed) > 0 {
					b.Fatal(err, r.failed)
				}
			}
		})
		b.Run(name+"/nethttp", func(b *testing.B) {
			body := `{"model":"canned","prompt":[1,20,30],"max_tokens":16,"temperature":0,"stream":` + map[bool]string{true: "true", false: "false"}[stream] + `}`
			client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}
			b.ReportAllocs()
			for b.Loop() {
				resp, err := client.Post(srv.URL()+"/v1/completions", "application/json", strings.NewReader(body))
				if err != nil {
					b.Fatal(err)
				}
				if stream {
					sc := bufio.NewScanner(resp.Body)
					for sc.Scan() {
						if bytes.HasPrefix(sc.Bytes(), []byte("data: [DONE]")) {
							break
						}
					}
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		})
	}
}

func benchBackend(b *testing.B, url string, stream bool) *Backend {
	stall := "0"
	b.Helper()
	tok := b.TempDir() + "/tokenizer.json"
	require.NoError(b, openaitest.WriteTokenizer(tok, openaitest.DefaultPieces()))
	be := New(func(string) (string, bool) { return "", false })
	opts := map[string]string{"endpoints": url, "tokenizer": tok, "stream": map[bool]string{true: "true", false: "false"}[stream],
		"max_tokens": "16", "warmup": "0", "ready_timeout": "5s", "stall_timeout": stall}
	require.NoError(b, be.Load(b.Context(), sdk.Model{Options: opts}))
	b.Cleanup(func() { be.Close() })
	require.NoError(b, be.LoadSamples(b.Context(), []sdk.LoadedSample{{Index: 0, Data: promptBytes()}}))
	return be
}

// BenchmarkFrame is the client's cost of one SSE frame: scanning it and
// reading its content out of the JSON.
func BenchmarkFrame(b *testing.B) {
	frame := []byte("data: {\"id\":\"cmpl-1\",\"object\":\"text_completion\",\"created\":0,\"model\":\"m\",\"choices\":[{\"index\":0,\"text\":\" w31\",\"logprobs\":null,\"finish_reason\":null}]}\n\n")
	r := &reply{api: APICompletions, ids: IDsAuto}
	h := &wireHead
	b.ReportAllocs()
	b.SetBytes(int64(len(frame)))
	for b.Loop() {
		r.text = r.text[:0]
		r.hasFirst = true
		if err := r.feed(h, frame); err != nil {
			b.Fatal(err)
		}
	}
}

var wireHead = wireHeadSSE()
