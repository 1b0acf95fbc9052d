package tinyllama

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestComplete(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		status int
		reply  string
		want   Completion
		err    string
	}{
		{name: "one choice", status: 200, reply: `{"choices":[{"text":"abc","finish_reason":"length"}],"usage":{"completion_tokens":3}}`,
			want: Completion{Text: "abc", CompletionTokens: 3, FinishReason: "length"}},
		{name: "status", status: 404, reply: `model "x" not found`, err: `404 Not Found: "model \"x\" not found"`},
		{name: "two choices", status: 200, reply: `{"choices":[{},{}]}`, err: "2 choices, want 1"},
		{name: "not JSON", status: 200, reply: `data: {}`, err: "invalid character"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var body map[string]any
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				assert.Equal(t, "/v1/completions", r.URL.Path)
				b, _ := io.ReadAll(r.Body)
				assert.NoError(t, json.Unmarshal(b, &body))
				w.WriteHeader(tc.status)
				_, _ = io.WriteString(w, tc.reply)
			}))
			defer srv.Close()
			got, err := Complete(t.Context(), srv.Client(), srv.URL, "tinyllama", "Hi", 3)
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
			assert.Equal(t, map[string]any{"model": "tinyllama", "prompt": "Hi", "max_tokens": 3.0, "temperature": 0.0,
				"stream": false, "stream_options": map[string]any{"include_usage": false}}, body)
		})
	}
}
