package backend

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/sdk"
)

// The APIs the plugin speaks.
const (
	APICompletions = "completions" // POST /v1/completions
	APIChat        = "chat"        // POST /v1/chat/completions
	APISGLang      = "sglang"      // POST /generate
)

// Where output token ids come from.
const (
	IDsAuto      = "auto"      // the server's when a frame carries them, else the tokenizer's
	IDsServer    = "server"    // asked of the server (return_token_ids); a reply without them fails
	IDsTokenizer = "tokenizer" // the text re-encoded with the tokenizer, as NVIDIA's harness does
)

// What a sample completes with (option response).
const (
	ResponseAuto = "auto" // the benchmark's: text where its evaluation reads text, else ids
	ResponseIDs  = "ids"  // the output token ids, int32
	ResponseText = "text" // the reply's text, UTF-8
)

// textBenchmarks are the benchmarks whose evaluation reads the reply's
// text, not its token ids: qwen3-vl's evaluation.py decodes the logged
// bytes as UTF-8 JSON.
var textBenchmarks = map[string]bool{"qwen3-vl-235b-a22b": true}

// Options is the option schema (`mlperf-host plugins describe openai`).
var Options = []sdk.Option{
	{Name: "endpoints", Default: "http://127.0.0.1:8000", Doc: "the servers' base URLs, comma-separated (http:// or https://); requests go to the one with the fewest outstanding"},
	{Name: "api", Type: abi.OptionEnum, Allowed: []string{APICompletions, APIChat, APISGLang}, Default: APICompletions, Doc: "completions: POST /v1/completions; chat: POST /v1/chat/completions; sglang: SGLang's POST /generate (token ids in and out)"},
	{Name: "model", Doc: "the request's model field; empty: the first model the first endpoint's /v1/models lists"},
	{Name: "prompt", Type: abi.OptionEnum, Allowed: []string{"ids", "text"}, Default: "ids", Doc: "completions: send the prompt as token ids, or as text decoded with the tokenizer (chat always sends text, sglang ids)"},
	{Name: "stream", Type: abi.OptionBool, Default: "true", Doc: "stream the reply as server-sent events (time to first token measured at the first content frame); false: one JSON reply"},
	{Name: "max_tokens", Type: abi.OptionInt, Doc: "output tokens at most; unset: the benchmark's reference setting (its accuracy run's where that differs; 128 when the benchmark has none)"},
	{Name: "min_tokens", Type: abi.OptionInt, Doc: "output tokens at least (vLLM min_tokens, SGLang min_new_tokens); unset: the benchmark's reference setting"},
	{Name: "stop", Doc: `stop strings: one string, or a JSON list ["a","b"]`},
	{Name: "temperature", Type: abi.OptionFloat, Default: "0", Doc: "sampling temperature (0: greedy, as the references generate)"},
	{Name: "top_p", Type: abi.OptionFloat, Doc: "nucleus sampling; unset: the server's default"},
	{Name: "top_k", Type: abi.OptionInt, Doc: "top-k sampling; unset: the server's default"},
	{Name: "concurrency", Type: abi.OptionInt, Default: "64", Doc: "requests in flight per endpoint"},
	{Name: "connections", Type: abi.OptionInt, Doc: "keep-alive connections per endpoint at most; unset: concurrency"},
	{Name: "connect_timeout", Type: abi.OptionDuration, Default: "10s", Doc: "bound on a TCP connect and TLS handshake"},
	{Name: "first_byte_timeout", Type: abi.OptionDuration, Default: "10m", Doc: "bound on the wait for a reply's head; 0: none"},
	{Name: "stall_timeout", Type: abi.OptionDuration, Default: "1m", Doc: "bound on each wait for more of a reply; 0: none"},
	{Name: "ready_timeout", Type: abi.OptionDuration, Default: "10m", Doc: "bound on the wait at Load for every endpoint's /v1/models or /health"},
	{Name: "tls_ca", Type: abi.OptionPath, Doc: "PEM file of the CAs that sign the servers' certificates; unset: the system's"},
	{Name: "tls_cert", Type: abi.OptionPath, Doc: "PEM file of a client certificate (with tls_key) for servers that ask for one"},
	{Name: "tls_key", Type: abi.OptionPath, Doc: "PEM file of the client certificate's key"},
	{Name: "api_key_env", Doc: "name of the environment variable holding the API key (sent as a bearer token); the key itself is never an option and never logged"},
	{Name: "extra", Doc: `JSON object whose fields are added to every request body, last (so they win), e.g. {"skip_special_tokens":false}`},
	{Name: "tokenizer", Type: abi.OptionPath, Doc: "the model's tokenizer.json: token ids of text replies, text prompts"},
	{Name: "token_ids", Type: abi.OptionEnum, Allowed: []string{IDsAuto, IDsServer, IDsTokenizer}, Default: IDsAuto, Doc: "output token ids: auto (the server's when sent, else the tokenizer's), server (asked for with return_token_ids), tokenizer (re-encode the text)"},
	{Name: "response", Type: abi.OptionEnum, Allowed: []string{ResponseAuto, ResponseIDs, ResponseText}, Default: ResponseAuto, Doc: "what a sample completes with: ids (the output token ids, int32), text (the reply's UTF-8 text, counted in tokens by the reply's usage, else its ids), or auto: text for a benchmark whose evaluation reads text (qwen3-vl), else ids"},
	{Name: "warmup", Type: abi.OptionInt, Default: "4", Doc: "untimed requests per endpoint before the timed run"},
}

// Config is the plugin's configuration, read from its options.
type Config struct {
	Endpoints   []*url.URL
	API         string
	Model       string
	TextPrompt  bool
	Stream      bool
	MaxTokens   int // 0: the benchmark's
	MinTokens   int // -1: the benchmark's
	Stop        []string
	Temperature float64
	TopP        float64 // <0: unset
	TopK        int     // <0: unset
	Concurrency int
	Connections int
	Timeouts    Timeouts
	TLS         *tls.Config // nil: from TLSFiles
	TLSFiles    [3]string   // CA, cert, key
	APIKeyEnv   string
	Extra       string // the fields of the extra object, without braces
	Tokenizer   string
	TokenIDs    string
	Response    string
	Warmup      int
}

// Timeouts bound the plugin's waits.
type Timeouts struct {
	Connect, FirstByte, Stall, Ready time.Duration
}

// ParseConfig reads the options as Load gets them (the schema's
// defaults filled in).
func ParseConfig(opts map[string]string) (Config, error) {
	c := Config{API: APICompletions, Stream: true, MinTokens: -1, TopP: -1, TopK: -1, Concurrency: 64, TokenIDs: IDsAuto, Response: ResponseAuto, Warmup: 4,
		Timeouts: Timeouts{Connect: 10 * time.Second, FirstByte: 10 * time.Minute, Stall: time.Minute, Ready: 10 * time.Minute}}
	var errs []error
	bad := func(name string, err error) { errs = append(errs, fmt.Errorf("option %s: %w", name, err)) }
	for name, v := range opts {
		var err error
		switch name {
		case "endpoints":
			c.Endpoints, err = parseEndpoints(v)
		case "api":
			c.API = v
		case "model":
			c.Model = v
		case "prompt":
			c.TextPrompt = v == "text"
		case "stream":
			c.Stream, err = strconv.ParseBool(v)
		case "max_tokens":
			c.MaxTokens, err = atLeast(v, 1)
		case "min_tokens":
			c.MinTokens, err = atLeast(v, 0)
		case "stop":
			c.Stop, err = parseStop(v)
		case "temperature":
			c.Temperature, err = strconv.ParseFloat(v, 64)
		case "top_p":
			c.TopP, err = strconv.ParseFloat(v, 64)
		case "top_k":
			c.TopK, err = atLeast(v, 0)
		case "concurrency":
			c.Concurrency, err = atLeast(v, 1)
		case "connections":
			c.Connections, err = atLeast(v, 1)
		case "connect_timeout":
			c.Timeouts.Connect, err = time.ParseDuration(v)
		case "first_byte_timeout":
			c.Timeouts.FirstByte, err = time.ParseDuration(v)
		case "stall_timeout":
			c.Timeouts.Stall, err = time.ParseDuration(v)
		case "ready_timeout":
			c.Timeouts.Ready, err = time.ParseDuration(v)
		case "tls_ca":
			c.TLSFiles[0] = v
		case "tls_cert":
			c.TLSFiles[1] = v
		case "tls_key":
			c.TLSFiles[2] = v
		case "api_key_env":
			c.APIKeyEnv = v
		case "extra":
			c.Extra, err = parseExtra(v)
		case "tokenizer":
			c.Tokenizer = v
		case "token_ids":
			c.TokenIDs = v
		case "response":
			c.Response = v
		case "warmup":
			c.Warmup, err = atLeast(v, 0)
		default:
			err = errors.New("unknown")
		}
		if err != nil {
			bad(name, err)
		}
	}
	if c.Endpoints == nil {
		c.Endpoints, _ = parseEndpoints("http://127.0.0.1:8000")
	}
	if c.Connections == 0 {
		c.Connections = c.Concurrency
	}
	if (c.TLSFiles[1] == "") != (c.TLSFiles[2] == "") {
		errs = append(errs, errors.New("options tls_cert and tls_key go together"))
	}
	if c.needsTokenizer() && c.Tokenizer == "" {
		errs = append(errs, fmt.Errorf("option tokenizer: needed for api %s with token_ids %s and prompt %s (the tokenizer.json of the served model)", c.API, c.TokenIDs, map[bool]string{true: "text", false: "ids"}[c.TextPrompt]))
	}
	return c, errors.Join(errs...)
}

// needsTokenizer says whether the configuration cannot work without a
// tokenizer: text to send, or text replies to count.
func (c Config) needsTokenizer() bool {
	switch {
	case c.API == APICompletions && c.TextPrompt:
		return true // the prompt's ids become text
	case c.Response != ResponseIDs && c.TokenIDs != IDsTokenizer:
		// A text reply is counted by its usage; a chat request of token
		// ids (not of chat messages) is refused at LoadSamples without
		// one, and so is a reply of ids (auto, for a benchmark of ids)
		// that needs it to count.
		return false
	case c.API == APIChat:
		return true // the prompt's ids become text
	case c.TokenIDs == IDsTokenizer:
		return true
	case c.TokenIDs == IDsAuto:
		return c.API != APISGLang // only /generate always sends ids
	}
	return false
}

func atLeast(v string, lo int) (int, error) {
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, err
	}
	if n < lo {
		return 0, fmt.Errorf("must be at least %d", lo)
	}
	return n, nil
}

func parseEndpoints(v string) ([]*url.URL, error) {
	var out []*url.URL
	for s := range strings.SplitSeq(v, ",") {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		u, err := url.Parse(s)
		if err != nil {
			return nil, err
		}
		if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("%q is not an http:// or https:// URL", s)
		}
		if u.User != nil {
			return nil, fmt.Errorf("%q: credentials in a URL are not allowed (use api_key_env)", u.Redacted())
		}
		u.Path = strings.TrimRight(u.Path, "/")
		out = append(out, u)
	}
	if len(out) == 0 {
		return nil, errors.New("no URL")
	}
	return out, nil
}

func parseStop(v string) ([]string, error) {
	if !strings.HasPrefix(strings.TrimSpace(v), "[") {
		return []string{v}, nil
	}
	var out []string
	if err := json.Unmarshal([]byte(v), &out); err != nil {
		return nil, fmt.Errorf("not a JSON list of strings: %w", err)
	}
	return out, nil
}

func parseExtra(v string) (string, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(v), &m); err != nil {
		return "", fmt.Errorf("not a JSON object: %w", err)
	}
	s := strings.TrimSpace(v)
	return strings.TrimSpace(s[1 : len(s)-1]), nil
}

// tlsConfig builds the client TLS configuration from the files named.
func (c Config) tlsConfig() (*tls.Config, error) {
	if c.TLS != nil {
		return c.TLS, nil
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if ca := c.TLSFiles[0]; ca != "" {
		pem, err := os.ReadFile(ca)
		if err != nil {
			return nil, fmt.Errorf("option tls_ca: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("option tls_ca: %s holds no PEM certificate", ca)
		}
		cfg.RootCAs = pool
	}
	if c.TLSFiles[1] != "" {
		cert, err := tls.LoadX509KeyPair(c.TLSFiles[1], c.TLSFiles[2])
		if err != nil {
			return nil, fmt.Errorf("options tls_cert, tls_key: %w", err)
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	return cfg, nil
}

// reference is a benchmark's reference generation settings: the most
// output tokens (in an accuracy run, when it differs) and the fewest (-1:
// the reference sets none, and none is sent).
type reference struct{ maxTokens, accuracyMaxTokens, minTokens int }

// references are the reference implementations' generation settings, as
// mlcommons/inference's language/ directory has them, by mlperf.conf
// model name without its -99/-99.9/-interactive suffix:
//
//   - llama2-70b: max_new_tokens 1024, min_new_tokens 1
//     (language/llama2-70b/SUT.py, gen_kwargs).
//   - llama3.1-8b: max_tokens 128, min_tokens 1
//     (language/llama3.1-8b/SUT_VLLM.py, gen_kwargs).
//   - llama3.1-405b: max_tokens 2000, min_tokens 1
//     (language/llama3.1-405b/SUT_VLLM.py, gen_kwargs).
//   - mixtral-8x7b: max_new_tokens 1024, min_new_tokens 2
//     (language/mixtral-8x7b/SUT.py, gen_kwargs).
//   - deepseek-r1: 20 000 output tokens at most (MAX_OSL), no minimum
//     (language/deepseek-r1/utils/backend_registry.py).
//   - gpt-oss-120b: max_output_len 10240 for performance, 32768 for
//     accuracy, no minimum (language/gpt-oss-120b/README.md; 32768 is
//     generation_config.json's max_new_tokens). Its reference samples at
//     temperature 1.0, top_p 1.0, which the options temperature and top_p
//     set.
//   - qwen3-vl-235b-a22b: no bound, no minimum: its reference sends
//     neither, and the server's default (the context left) applies
//     (multimodal/qwen3-vl/src/mlperf_inf_mm_q3vl/task.py). It samples
//     with the model's generation_config.json (temperature 0.7, top_p
//     0.8, top_k 20), which the options temperature, top_p and top_k
//     set.
var references = map[string]reference{
	"llama2-70b":         {1024, 0, 1},
	"llama3_1-8b":        {128, 0, 1},
	"llama3.1-8b":        {128, 0, 1},
	"llama3_1-405b":      {2000, 0, 1},
	"llama3.1-405b":      {2000, 0, 1},
	"mixtral-8x7b":       {1024, 0, 2},
	"deepseek-r1":        {20000, 0, -1},
	"gpt-oss-120b":       {10240, 32768, -1},
	"qwen3-vl-235b-a22b": {-1, 0, -1},
}

// generation fills the settings left unset from the benchmark's
// reference (128 tokens at most, no minimum, for a benchmark without
// one); accuracy says the run is an accuracy run.
func (c Config) generation(benchmark string, accuracy bool) (maxTokens, minTokens int) {
	name := benchmark
	for _, suffix := range []string{"-interactive", "-99.9", "-99", "-edge"} {
		name = strings.TrimSuffix(name, suffix)
	}
	ref, ok := references[name]
	if !ok {
		ref = reference{128, 0, -1}
	}
	if accuracy && ref.accuracyMaxTokens > 0 {
		ref.maxTokens = ref.accuracyMaxTokens
	}
	maxTokens, minTokens = c.MaxTokens, c.MinTokens
	if maxTokens == 0 {
		maxTokens = ref.maxTokens
	}
	if minTokens < 0 {
		minTokens = ref.minTokens
	}
	return maxTokens, minTokens
}
