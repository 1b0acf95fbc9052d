package backend

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/plugins/openai/wire"
	"github.com/mlperf-host/mlperf-host/sdk"
	"github.com/mlperf-host/mlperf-host/sdk/tokenizer"
)

// Version is the plugin's version.
const Version = "0.1.0"

// PromptTensor is the sample tensor holding a prompt's token ids (int32).
const PromptTensor = "input_ids"

// MessagesTensor is the sample tensor holding a chat request's messages
// as they are sent (uint8: a JSON array of messages, whose content may
// hold image_url parts with data URLs, as a VLM's reference sends them).
const MessagesTensor = "messages"

// Backend drives OpenAI-compatible servers. Build it with [New].
type Backend struct {
	lookupEnv func(string) (string, bool)
	cfg       Config
	eps       []*endpoint
	turn      atomic.Uint64
	tok       *tokenizer.Tokenizer
	body      body
	prompts   map[uint64][]byte
	timeouts  wire.Timeouts
	log       *slog.Logger
	replies   sync.Pool
	source    string
	model     string
}

var (
	_ sdk.Backend            = (*Backend)(nil)
	_ sdk.SampleLoader       = (*Backend)(nil)
	_ sdk.Warmer             = (*Backend)(nil)
	_ sdk.SubmissionReporter = (*Backend)(nil)
	_ sdk.MemberReporter     = (*Backend)(nil)
)

// New returns a backend that reads the API key's variable through
// lookupEnv (os.LookupEnv in the plugin's main).
func New(lookupEnv func(string) (string, bool)) *Backend {
	cfg, _ := ParseConfig(map[string]string{"token_ids": IDsServer, "api": APISGLang})
	return &Backend{lookupEnv: lookupEnv, cfg: cfg, log: slog.New(slog.DiscardHandler), prompts: map[uint64][]byte{}}
}

// Info describes the backend: one sample per call, as many calls at
// once as the endpoints take.
func (b *Backend) Info() sdk.Info {
	n := len(b.eps)
	if n == 0 {
		n = len(b.cfg.Endpoints)
	}
	return sdk.Info{Name: "openai", Version: Version,
		Description: "OpenAI-compatible serving engines over HTTP: vLLM, SGLang, TensorRT-LLM serve, Triton, Dynamo, Ollama (subprocess)",
		MaxBatch:    1, MaxInFlight: n * b.cfg.Concurrency, FirstTokens: true, Options: Options}
}

// Load reads the options, opens the tokenizer and waits for every
// endpoint to be ready.
func (b *Backend) Load(ctx context.Context, m sdk.Model) error {
	opts := m.Options
	if _, set := opts["tokenizer"]; !set && filepath.Base(m.Path) == "tokenizer.json" {
		// --model tokenizer.json: the model lives on the servers, the
		// plugin needs only its tokenizer.
		opts = maps.Clone(opts)
		opts["tokenizer"] = m.Path
	}
	cfg, err := ParseConfig(opts)
	if err != nil {
		return sdk.Errorf(abi.InvalidArgument, "%v", err)
	}
	var apiKey string
	if cfg.APIKeyEnv != "" {
		k, ok := b.lookupEnv(cfg.APIKeyEnv)
		if !ok || k == "" {
			return sdk.Errorf(abi.InvalidArgument, "option api_key_env: the environment variable %s is not set", cfg.APIKeyEnv)
		}
		apiKey = k
	}
	tlsCfg, err := cfg.tlsConfig()
	if err != nil {
		return sdk.Errorf(abi.InvalidArgument, "%v", err)
	}
	if cfg.Tokenizer != "" {
		if b.tok, err = tokenizer.Open(cfg.Tokenizer); err != nil {
			return sdk.Errorf(abi.InvalidArgument, "option tokenizer: %v", err)
		}
	}
	if cfg.Response == ResponseAuto {
		cfg.Response = ResponseIDs
		if textBenchmarks[m.Run.Benchmark] {
			cfg.Response = ResponseText
		}
	}
	if cfg.Response == ResponseIDs && cfg.needsTokenizer() && b.tok == nil {
		return sdk.Errorf(abi.InvalidArgument, "option tokenizer: needed for api %s with token_ids %s and response ids (the tokenizer.json of the served model)", cfg.API, cfg.TokenIDs)
	}
	b.cfg, b.log = cfg, sdk.Logger(ctx)
	b.eps = b.eps[:0]
	for _, u := range cfg.Endpoints {
		b.eps = append(b.eps, newEndpoint(u, cfg.path(), apiKey, cfg, tlsCfg))
	}
	b.timeouts = wire.Timeouts{FirstByte: cfg.Timeouts.FirstByte, Stall: cfg.Timeouts.Stall}
	model, err := b.ready(ctx)
	if err != nil {
		return err
	}
	if cfg.Model != "" {
		model = cfg.Model
	}
	b.model = model
	maxTokens, minTokens := cfg.generation(m.Run.Benchmark, m.Run.Mode == sdk.AccuracyOnly)
	b.body = cfg.newBody(model, maxTokens, minTokens)
	b.source = b.idsSource()
	b.log.Info("openai: ready", "endpoints", len(b.eps), "api", cfg.API, "model", model, "stream", cfg.Stream,
		"max_tokens", maxTokens, "min_tokens", minTokens, "token_ids", b.source)
	return nil
}

// idsSource says where output token ids come from.
func (b *Backend) idsSource() string {
	switch {
	case b.cfg.API == APISGLang && b.cfg.TokenIDs != IDsTokenizer:
		return "server (output_ids)"
	case b.cfg.TokenIDs == IDsServer:
		return "server (token_ids)"
	case b.cfg.TokenIDs == IDsAuto:
		return "server when sent, else tokenizer " + b.cfg.Tokenizer
	}
	return "tokenizer " + b.cfg.Tokenizer + " (first frame's text encoded, then the whole text's ids after as many)"
}

// SubmissionFacts says what the plugin knows of the system: the API and
// where token ids come from.
func (b *Backend) SubmissionFacts() sdk.SubmissionFacts {
	return sdk.SubmissionFacts{Framework: fmt.Sprintf("OpenAI-compatible server over HTTP (api %s, model %s; token ids: %s)", b.cfg.API, b.model, b.source)}
}

// LoadSamples builds each sample's prompt as the request carries it, and
// starts the endpoints' figures anew.
func (b *Backend) LoadSamples(_ context.Context, samples []sdk.LoadedSample) error {
	for _, e := range b.eps {
		e.resetStats()
	}
	for _, s := range samples {
		p, err := b.samplePrompt(s.Data, s.Tensors)
		if err != nil {
			return sdk.Errorf(abi.InvalidArgument, "sample %d: %v", s.Index, err)
		}
		b.prompts[s.Index] = p
	}
	return nil
}

// samplePrompt is the part of a request a sample fills: its chat
// messages as they are (a [MessagesTensor]), else its prompt's token ids
// ([PromptTensor], else the whole sample).
func (b *Backend) samplePrompt(data []byte, tensors []sdk.Tensor) ([]byte, error) {
	for _, t := range tensors {
		switch t.Name {
		case MessagesTensor:
			if b.cfg.API != APIChat {
				return nil, fmt.Errorf("a sample of chat messages (tensor %s) needs api chat, not %s", MessagesTensor, b.cfg.API)
			}
			m := bytes.TrimSpace(t.Data)
			if len(m) == 0 || m[0] != '[' || !json.Valid(m) {
				return nil, fmt.Errorf("tensor %s is not a JSON array of messages", MessagesTensor)
			}
			return append([]byte(nil), m...), nil
		case PromptTensor:
			data = t.Data
		}
	}
	return b.prompt(data)
}

// UnloadSamples drops the prompts.
func (b *Backend) UnloadSamples(_ context.Context, indices []uint64) error {
	for _, i := range indices {
		delete(b.prompts, i)
	}
	return nil
}

// prompt is the JSON of a prompt, from its int32 token ids.
func (b *Backend) prompt(data []byte) ([]byte, error) {
	if len(data)%4 != 0 {
		return nil, fmt.Errorf("%d bytes are not int32 token ids", len(data))
	}
	ids := make([]int32, len(data)/4)
	for i := range ids {
		ids[i] = int32(binary.LittleEndian.Uint32(data[4*i:]))
	}
	if b.tok == nil && (b.cfg.API == APIChat || b.cfg.TextPrompt) {
		return nil, fmt.Errorf("a prompt of token ids becomes text for api %s: option tokenizer is needed", b.cfg.API)
	}
	if b.cfg.API == APIChat {
		return userMessages(b.tok.Decode(ids, true)), nil
	}
	if b.cfg.API == APICompletions && b.cfg.TextPrompt {
		return textJSON(b.tok.Decode(ids, true)), nil
	}
	return idsJSON(ids), nil
}

// Infer sends each sample of q (one, as Info says) to an endpoint.
func (b *Backend) Infer(ctx context.Context, q sdk.Query, c sdk.Completer) error {
	for _, s := range q.Samples {
		p, ok := b.prompts[s.Index]
		if !ok {
			var err error
			if p, err = b.samplePrompt(s.Data, s.Tensors); err != nil {
				c.Fail(s.ID, fmt.Errorf("sample %d: %w", s.Index, err))
				continue
			}
		}
		text := b.cfg.Response == ResponseText
		out, err := b.send(ctx, p, func(first []int32, piece []byte) {
			if text {
				c.FirstToken(s.ID, append([]byte(nil), piece...))
				return
			}
			c.FirstToken(s.ID, int32Bytes(nil, first))
		})
		if err != nil {
			c.Fail(s.ID, err)
			continue
		}
		if text {
			c.Complete(s.ID, out.text, out.tokens())
			continue
		}
		c.Complete(s.ID, int32Bytes(nil, out.ids), int64(len(out.ids)))
	}
	return nil
}

// output is what a reply produced: its token ids (nil for a text
// response whose ids are not known), its text, and its usage count (-1
// when it has none).
type output struct {
	ids   []int32
	text  []byte
	usage int64
}

// tokens counts a text response's tokens: the reply's usage, else its
// ids.
func (o output) tokens() int64 {
	if o.usage >= 0 {
		return o.usage
	}
	return int64(len(o.ids))
}

// send runs one request at the least busy endpoint and returns the
// output; onFirst gets the first content's ids and text.
func (b *Backend) send(ctx context.Context, prompt []byte, onFirst func([]int32, []byte)) (output, error) {
	e := pick(b.eps, &b.turn)
	defer e.outstanding.Add(-1)
	start := time.Now()
	out, err := b.exchange(ctx, e, prompt, onFirst)
	e.record(time.Since(start), err)
	if err != nil {
		return output{}, &EndpointError{URL: e.url, Err: err}
	}
	return out, nil
}

func (b *Backend) exchange(ctx context.Context, e *endpoint, prompt []byte, onFirst func([]int32, []byte)) (output, error) {
	conn, err := e.conn(ctx)
	if err != nil {
		return output{}, err
	}
	r, _ := b.replies.Get().(*reply)
	if r == nil {
		r = &reply{}
	}
	defer b.replies.Put(r)
	r.reset()
	r.api, r.ids, r.tok, r.onFirst = b.cfg.API, b.cfg.TokenIDs, b.tok, onFirst
	conn.Req = appendRequest(conn.Req[:0], e.head, b.body, prompt)
	h, err := conn.Do(ctx, conn.Req, b.timeouts, r.feed)
	if err == nil {
		err = r.end(h)
	}
	e.release(conn, err == nil && !h.Close)
	if err != nil {
		return output{}, err
	}
	text := b.cfg.Response == ResponseText
	ids, err := r.output()
	if err != nil && (!text || r.srvSeen || r.ids == IDsServer) {
		return output{}, err // a text response needs no ids unless asked for
	}
	switch {
	case text && (!r.hasFirst || !h.EventStream):
		onFirst(nil, r.text) // a reply in one piece: its text is its first
	case !text && (!r.hasFirst || !h.EventStream) && len(ids) > 0:
		onFirst(ids[:1], nil) // a reply in one piece, or of ids without text
	}
	out := output{ids: slices.Clone(ids), usage: r.usage} // r goes back to the pool
	if text {
		out.text = slices.Clone(r.text)
	}
	return out, nil
}

// int32Bytes appends ids, little-endian.
func int32Bytes(dst []byte, ids []int32) []byte {
	dst = slices.Grow(dst, 4*len(ids)) // one allocation, not one per doubling
	for _, id := range ids {
		dst = binary.LittleEndian.AppendUint32(dst, uint32(id))
	}
	return dst
}

// Warmup sends the configured number of untimed requests to every
// endpoint, a loaded sample's prompt each; any failure fails it.
func (b *Backend) Warmup(ctx context.Context) error {
	var prompt []byte
	for _, p := range b.prompts {
		prompt = p
		break
	}
	if prompt == nil || b.cfg.Warmup == 0 {
		return nil
	}
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
	)
	for _, e := range b.eps {
		for range min(b.cfg.Warmup, b.cfg.Concurrency) {
			wg.Go(func() {
				for k := 0; k < b.cfg.Warmup; k += b.cfg.Concurrency {
					e.outstanding.Add(1)
					_, err := b.exchange(ctx, e, prompt, func([]int32, []byte) {})
					e.outstanding.Add(-1)
					if err != nil {
						mu.Lock()
						errs = append(errs, &EndpointError{URL: e.url, Err: err})
						mu.Unlock()
						return
					}
				}
			})
		}
	}
	wg.Wait()
	for _, e := range b.eps {
		e.resetStats()
	}
	if len(errs) > 0 {
		return sdk.Errorf(abi.Unavailable, "warm-up: %v", errs[0])
	}
	return nil
}

// Stats returns what each endpoint did since the warm-up.
func (b *Backend) Stats() []EndpointStats {
	out := make([]EndpointStats, len(b.eps))
	var total int64
	for i, e := range b.eps {
		out[i] = e.stats()
		total += out[i].Completed
	}
	for i := range out {
		if total > 0 {
			out[i].Share = float64(out[i].Completed) / float64(total)
		}
	}
	return out
}

// Members says what each endpoint did since samples were last loaded (or
// the warm-up): the host shows it as it shows a pool's members.
func (b *Backend) Members() []sdk.MemberStats {
	st := b.Stats()
	out := make([]sdk.MemberStats, len(st))
	for i, s := range st {
		out[i] = sdk.MemberStats{Name: s.URL, Completed: s.Completed, Failed: s.Failed, Min: s.Min, Mean: s.Mean,
			P50: s.P50, P90: s.P90, P99: s.P99, Max: s.Max, Latency: LatencyBasis, FirstError: s.FirstError}
	}
	return out
}

// Close logs each endpoint's share, failures and latencies, and closes
// the connections.
func (b *Backend) Close() error {
	for _, s := range b.Stats() {
		b.log.Info("openai: endpoint " + s.String())
	}
	for _, e := range b.eps {
		e.closeIdle()
	}
	return nil
}
