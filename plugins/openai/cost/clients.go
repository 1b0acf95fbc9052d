package cost

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/mlperf-host/mlperf-host/plugins/openai/backend"
	"github.com/mlperf-host/mlperf-host/sdk"
)

// A client sends request k (the prompt [1, k]) and stamps firsts[k], in
// Unix nanoseconds, when the first token arrives.
type client interface {
	do(ctx context.Context, k int, firsts []int64) error
	close()
}

// pluginClient is the plugin's backend, called as the SDK calls it: one
// sample a query, Infer on the caller's goroutine.
type pluginClient struct {
	b *backend.Backend
}

// newPlugin loads a backend against url with samples prompts loaded;
// more are options of its own besides the ones it is given here, which
// they may not change.
func newPlugin(ctx context.Context, url, tokenizer string, stream bool, tokens, samples, concurrency int, more map[string]string) (*pluginClient, error) {
	b := backend.New(func(string) (string, bool) { return "", false })
	opts := map[string]string{"endpoints": url, "tokenizer": tokenizer, "stream": strconv.FormatBool(stream),
		"max_tokens": strconv.Itoa(tokens), "warmup": "0", "ready_timeout": "10s", "concurrency": strconv.Itoa(concurrency)}
	for k := range more {
		if _, ok := opts[k]; ok {
			return nil, fmt.Errorf("the plugin's option %q is the run's own", k)
		}
	}
	maps.Copy(opts, more)
	if err := b.Load(ctx, sdk.Model{Options: opts}); err != nil {
		return nil, fmt.Errorf("load the plugin: %w", err)
	}
	loaded := make([]sdk.LoadedSample, samples)
	for k := range loaded {
		loaded[k] = sdk.LoadedSample{Index: uint64(k), Data: prompt(k)}
	}
	if err := b.LoadSamples(ctx, loaded); err != nil {
		b.Close()
		return nil, fmt.Errorf("load the samples: %w", err)
	}
	return &pluginClient{b: b}, nil
}

// prompt is the sample bytes of the prompt [1, k].
func prompt(k int) []byte {
	p := binary.LittleEndian.AppendUint32(nil, 1)
	return binary.LittleEndian.AppendUint32(p, uint32(k))
}

func (c *pluginClient) do(ctx context.Context, k int, firsts []int64) error {
	done := completer{firsts: firsts}
	if err := c.b.Infer(ctx, sdk.Query{Samples: []sdk.Sample{{ID: uint64(k), Index: uint64(k)}}}, &done); err != nil {
		return err
	}
	return done.err
}

func (c *pluginClient) close() { c.b.Close() }

// completer stamps the first token and keeps a failure.
type completer struct {
	firsts []int64
	err    error
}

func (c *completer) FirstToken(id uint64, _ []byte) { c.firsts[id] = time.Now().UnixNano() }
func (c *completer) Complete(uint64, []byte, int64) {}
func (c *completer) Fail(_ uint64, err error)       { c.err = err }

// httpClient is a plain net/http loop: the same request body, the reply
// read line by line (streamed) or whole, the first data line taken as
// the first token; no JSON decoded, no token counted.
type httpClient struct {
	c      *http.Client
	url    string
	prefix []byte
	suffix []byte
	stream bool
	bufs   sync.Pool
}

func newHTTP(url string, stream bool, tokens, concurrency int) *httpClient {
	tr := &http.Transport{MaxIdleConns: concurrency, MaxIdleConnsPerHost: concurrency, MaxConnsPerHost: concurrency}
	c := &httpClient{c: &http.Client{Transport: tr}, url: url + "/v1/completions", stream: stream}
	c.prefix, c.suffix = bodyParts(stream, tokens)
	return c
}

// bodyParts are the /v1/completions body of the prompt [1, k] for
// tokens tokens, less k: the clients that write the body themselves
// send these bytes, the plugin the same fields.
func bodyParts(stream bool, tokens int) (prefix, suffix []byte) {
	s := `],"max_tokens":` + strconv.Itoa(tokens) + `,"temperature":0`
	if stream {
		s += `,"stream_options":{"include_usage":true}`
	}
	s += `,"stream":` + strconv.FormatBool(stream) + `}`
	return []byte(`{"model":"canned","prompt":[1,`), []byte(s)
}

var done = []byte("data: [DONE]")

func (c *httpClient) do(ctx context.Context, k int, firsts []int64) error {
	body := strconv.AppendInt(append([]byte(nil), c.prefix...), int64(k), 10)
	body = append(body, c.suffix...)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("HTTP %d", resp.StatusCode)
	}
	if !c.stream {
		if _, err := io.Copy(io.Discard, resp.Body); err != nil {
			return err
		}
		firsts[k] = time.Now().UnixNano()
		return nil
	}
	br, _ := c.bufs.Get().(*bufio.Reader)
	if br == nil {
		br = bufio.NewReaderSize(resp.Body, 4096)
	} else {
		br.Reset(resp.Body)
	}
	defer c.bufs.Put(br)
	seen := false
	for {
		line, err := br.ReadSlice('\n')
		if err != nil {
			return fmt.Errorf("read the stream: %w", err)
		}
		if !bytes.HasPrefix(line, []byte("data: ")) {
			continue
		}
		if bytes.HasPrefix(line, done) {
			break
		}
		if !seen {
			seen = true
			firsts[k] = time.Now().UnixNano()
		}
	}
	if !seen {
		return errors.New("no frame before [DONE]")
	}
	_, err = io.Copy(io.Discard, resp.Body)
	return err
}

func (c *httpClient) close() { c.c.CloseIdleConnections() }
