//go:build ollama

package tinyllama

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/sdk/tokenizer"
)

// These tests need Ollama serving the model: `make test-ollama` runs
// them inside scripts/with-ollama.sh, which starts the servers and names
// them in the environment. Without the servers they fail.

// ollamaServers is the servers' base URLs, the model's name and its
// tokenizer, from scripts/with-ollama.sh's environment.
func ollamaServers(t *testing.T) (endpoints []string, model string, tok *tokenizer.Tokenizer) {
	t.Helper()
	list, model, dir := os.Getenv("OLLAMA_TEST_ENDPOINTS"), os.Getenv("OLLAMA_TEST_MODEL"), os.Getenv("OLLAMA_TEST_DIR")
	require.True(t, list != "" && model != "" && dir != "",
		"no Ollama servers: run these tests with make test-ollama (scripts/with-ollama.sh sets OLLAMA_TEST_ENDPOINTS, OLLAMA_TEST_MODEL, OLLAMA_TEST_DIR)")
	tok, err := tokenizer.Open(filepath.Join(dir, TokenizerFile))
	require.NoError(t, err)
	return strings.Split(list, ","), model, tok
}

type completion struct {
	text       string
	frames     int // frames with text
	usage      int // completion_tokens of the last frame
	finish     string
	zeroBefore bool // every frame before the last had usage zero or none
}

// stream asks endpoint's /v1/completions for prompt, streamed, and
// reads the frames.
func stream(t *testing.T, endpoint, model, prompt string, maxTokens int) completion {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	req, err := CompletionRequest(ctx, endpoint, model, prompt, maxTokens, true)
	require.NoError(t, err)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	type frame struct {
		Choices []struct {
			Text         string  `json:"text"`
			FinishReason *string `json:"finish_reason"`
		} `json:"choices"`
		Usage *struct {
			CompletionTokens int `json:"completion_tokens"`
		} `json:"usage"`
	}
	c := completion{zeroBefore: true}
	add := func(f frame) {
		for _, ch := range f.Choices {
			if ch.Text != "" {
				c.text += ch.Text
				c.frames++
			}
			if ch.FinishReason != nil {
				c.finish = *ch.FinishReason
			}
		}
		if f.Usage != nil {
			c.usage = f.Usage.CompletionTokens
		}
	}
	sc := bufio.NewScanner(resp.Body)
	done := false
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			continue
		}
		require.True(t, strings.HasPrefix(line, "data: "), "SSE line %q", line)
		data := strings.TrimPrefix(line, "data: ")
		if data == "[DONE]" {
			done = true
			break
		}
		if c.usage != 0 {
			c.zeroBefore = false // a frame came after one with usage
		}
		var f frame
		require.NoError(t, json.Unmarshal([]byte(data), &f), data)
		add(f)
	}
	require.NoError(t, sc.Err())
	require.True(t, done, "the stream ends with data: [DONE]")
	return c
}

// TestOllamaServesTinyLlama: the servers load the model, and greedy
// completions are exactly max_tokens character pieces long (no EOS, no
// bytes), the same on every server, streamed or not, and their text
// encodes with the tokenizer.json to max_tokens ids.
func TestOllamaServesTinyLlama(t *testing.T) {
	t.Parallel()
	endpoints, model, tok := ollamaServers(t)
	require.GreaterOrEqual(t, len(endpoints), 1)
	for _, tc := range []struct {
		name      string
		prompt    string
		maxTokens int
	}{
		{name: "short", prompt: "Hello", maxTokens: 1},
		{name: "words", prompt: "the quick brown fox jumps over the lazy dog", maxTokens: 24},
		{name: "long", prompt: strings.Repeat("abc, def. ", 30), maxTokens: 64},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var first completion
			for i, e := range endpoints {
				c := stream(t, e, model, tc.prompt, tc.maxTokens)
				assert.Equal(t, tc.maxTokens, c.usage, "%s: usage", e)
				assert.Equal(t, "length", c.finish, "%s: finish reason", e)
				assert.True(t, c.zeroBefore, "%s: usage only in the last frame", e)
				assert.LessOrEqual(t, c.frames, tc.maxTokens, e)
				ids := tok.Encode(c.text)
				assert.Len(t, ids, tc.maxTokens, "%s: %q", e, c.text)
				for _, id := range ids {
					assert.GreaterOrEqual(t, id, int32(FirstPieceID), "%s: %q", e, c.text)
				}
				assert.Equal(t, c.text, tok.Decode(ids, false))
				if i == 0 {
					first = c
					ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
					whole, err := Complete(ctx, http.DefaultClient, e, model, tc.prompt, tc.maxTokens)
					cancel()
					require.NoError(t, err)
					assert.Equal(t, c.text, whole.Text, "%s: streamed and not", e)
					assert.Equal(t, tc.maxTokens, whole.CompletionTokens, "%s: usage not streamed", e)
					assert.Equal(t, "length", whole.FinishReason, e)
					continue
				}
				assert.Equal(t, first.text, c.text, "%s and %s", endpoints[0], e)
			}
		})
	}
}
