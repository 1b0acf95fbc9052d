package backend

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/plugins/openai/openaitest"
	"github.com/mlperf-host/mlperf-host/sdk"
)

// vlMessages are a VLM request's messages: a system prompt, and a user
// message of a text part and an image as a data URL.
const vlMessages = `[{"role":"system","content":"Answer in JSON."},{"role":"user","content":[` +
	`{"type":"text","text":"The title is \"Mug\"."},{"type":"image_url","image_url":{"url":"data:image/PNG;base64,iVBORw0KGgo="}}]}]`

// vlAnswer is the canned reply: non-ASCII, cut into pieces of up to 4
// bytes on character boundaries.
const vlAnswer = `{"category": "Home > Décor", "brand": "Zeiß", "is_secondhand": false}`

// TestMessagesText: a sample of chat messages is sent as they are, and
// with response=text it completes with the reply's text, counted by the
// reply's usage, its first piece as the first token, with no tokenizer.
func TestMessagesText(t *testing.T) {
	t.Parallel()
	for _, stream := range []string{"true", "false"} {
		t.Run("stream "+stream, func(t *testing.T) {
			t.Parallel()
			var got []byte
			srv, err := openaitest.Start(t.Context(), openaitest.Behavior{SplitBytes: true, Answer: func(m []byte) string {
				got = append([]byte(nil), m...)
				return vlAnswer
			}})
			require.NoError(t, err)
			t.Cleanup(func() { srv.Close() })
			b := New(func(string) (string, bool) { return "", false })
			require.NoError(t, b.Load(t.Context(), sdk.Model{Run: sdk.Run{Benchmark: "qwen3-vl-235b-a22b"}, Options: map[string]string{"endpoints": srv.URL(), "api": "chat",
				"response": "text", "stream": stream, "warmup": "0", "ready_timeout": "5s"}}))
			t.Cleanup(func() { b.Close() })
			msgs := []byte(vlMessages)
			require.NoError(t, b.LoadSamples(t.Context(), []sdk.LoadedSample{{Index: 0, Data: msgs,
				Tensors: []sdk.Tensor{{Name: MessagesTensor, Data: msgs}}}}))
			r := infer(t, b, 7)
			require.Empty(t, r.failed)
			assert.JSONEq(t, vlAnswer, string(r.raw[7]))
			assert.Len(t, r.raw[7], len(vlAnswer), "the text byte for byte")
			assert.EqualValues(t, 18, r.n[7], "the usage's completion_tokens: the canned pieces")
			if stream == "true" {
				assert.Equal(t, `{"ca`, string(r.rawFirst[7]))
			} else {
				assert.JSONEq(t, vlAnswer, string(r.rawFirst[7]), "a reply in one piece is its own first token")
			}
			assert.JSONEq(t, vlMessages, string(got), "the messages as the sample holds them")
			var body map[string]json.RawMessage
			require.NoError(t, json.Unmarshal(srv.Requests()[0].Body, &body))
			assert.JSONEq(t, vlMessages, string(body["messages"]))
			assert.NotContains(t, body, "max_tokens", "qwen3-vl's reference sends no bound")
			assert.NotContains(t, body, "max_completion_tokens")
		})
	}
}

// TestMessagesRefused: chat messages need the chat API and must be a
// JSON array; token ids sent as chat text need the tokenizer.
func TestMessagesRefused(t *testing.T) {
	t.Parallel()
	srv, err := openaitest.Start(t.Context(), openaitest.Behavior{})
	require.NoError(t, err)
	t.Cleanup(func() { srv.Close() })
	tests := []struct {
		name string
		opts map[string]string
		t    sdk.Tensor
		want string
	}{
		{name: "completions", opts: map[string]string{"api": "completions", "token_ids": "server"},
			t: sdk.Tensor{Name: MessagesTensor, Data: []byte(vlMessages)}, want: "a sample of chat messages (tensor messages) needs api chat, not completions"},
		{name: "not an array", opts: map[string]string{"api": "chat", "response": "text"},
			t: sdk.Tensor{Name: MessagesTensor, Data: []byte(`{"role":"user"}`)}, want: "tensor messages is not a JSON array"},
		{name: "not JSON", opts: map[string]string{"api": "chat", "response": "text"},
			t: sdk.Tensor{Name: MessagesTensor, Data: []byte(`[{"role":`)}, want: "tensor messages is not a JSON array"},
		{name: "ids without tokenizer", opts: map[string]string{"api": "chat", "response": "text"},
			t: sdk.Tensor{Name: PromptTensor, Data: promptBytes()}, want: "a prompt of token ids becomes text for api chat: option tokenizer is needed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			opts := map[string]string{"endpoints": srv.URL(), "warmup": "0", "ready_timeout": "5s"}
			for k, v := range tt.opts {
				opts[k] = v
			}
			b := New(func(string) (string, bool) { return "", false })
			require.NoError(t, b.Load(t.Context(), sdk.Model{Options: opts}))
			t.Cleanup(func() { b.Close() })
			err := b.LoadSamples(t.Context(), []sdk.LoadedSample{{Index: 3, Data: tt.t.Data, Tensors: []sdk.Tensor{tt.t}}})
			require.ErrorContains(t, err, "sample 3: "+tt.want)
		})
	}
}

// TestResponseAuto: response=auto (the default) answers text for a
// benchmark whose evaluation reads text, ids for others, and ids still
// need a tokenizer to count a text reply.
func TestResponseAuto(t *testing.T) {
	t.Parallel()
	srv, err := openaitest.Start(t.Context(), openaitest.Behavior{})
	require.NoError(t, err)
	t.Cleanup(func() { srv.Close() })
	tests := []struct {
		name, benchmark, response string
		want, err                 string
	}{
		{name: "qwen3-vl", benchmark: "qwen3-vl-235b-a22b", want: ResponseText},
		{name: "qwen3-vl asked for ids", benchmark: "qwen3-vl-235b-a22b", response: ResponseIDs, err: "option tokenizer: needed for api chat"},
		{name: "an LLM", benchmark: "llama2-70b-99", err: "option tokenizer: needed for api chat with token_ids auto and response ids"},
		{name: "an LLM asked for text", benchmark: "llama2-70b-99", response: ResponseText, want: ResponseText},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			opts := map[string]string{"endpoints": srv.URL(), "api": "chat", "warmup": "0", "ready_timeout": "5s"}
			if tt.response != "" {
				opts["response"] = tt.response
			}
			b := New(func(string) (string, bool) { return "", false })
			err := b.Load(t.Context(), sdk.Model{Run: sdk.Run{Benchmark: tt.benchmark}, Options: opts})
			t.Cleanup(func() { b.Close() })
			if tt.err != "" {
				require.ErrorContains(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, b.cfg.Response)
		})
	}
}
