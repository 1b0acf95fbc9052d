package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseHead(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want Head
		err  bool
	}{
		{name: "chunked SSE", in: "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream; charset=utf-8\r\nTransfer-Encoding: chunked\r\n\r\n",
			want: Head{Status: 200, ContentLength: -1, Chunked: true, EventStream: true}},
		{name: "length, LF only", in: "HTTP/1.1 503 Service Unavailable\nContent-Length: 12\nConnection: close\n\n",
			want: Head{Status: 503, ContentLength: 12, Close: true}},
		{name: "HTTP/1.0 closes", in: "HTTP/1.0 200 OK\r\n\r\n", want: Head{Status: 200, ContentLength: -1, Close: true}},
		{name: "no reason", in: "HTTP/1.1 204\r\n\r\n", want: Head{Status: 204, ContentLength: -1}},
		{name: "two lengths", in: "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", err: true},
		{name: "gzip coding", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n", err: true},
		{name: "not HTTP", in: "SSH-2.0-OpenSSH\r\n\r\n", err: true},
		{name: "header without colon", in: "HTTP/1.1 200 OK\r\nbogus\r\n\r\n", err: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, len(tt.in), HeadEnd([]byte(tt.in+"body")))
			h, err := ParseHead([]byte(tt.in))
			if tt.err {
				assert.ErrorIs(t, err, ErrMalformed)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, h)
		})
	}
}

// dechunk decodes in fed in pieces of size n.
func dechunk(in []byte, n int) ([]byte, bool, error) {
	var c Chunked
	var out []byte
	for len(in) > 0 && !c.Done() {
		piece := in[:min(n, len(in))]
		for len(piece) > 0 && !c.Done() {
			p, used, err := c.Next(piece)
			if err != nil {
				return out, false, err
			}
			out = append(out, p...)
			piece = piece[used:]
		}
		in = in[min(n, len(in)):]
	}
	return out, c.Done(), nil
}

func TestChunked(t *testing.T) {
	t.Parallel()
	in := []byte("5\r\nhello\r\n1;ext=1\r\n \r\nA\r\n0123456789\r\n0\r\nTrailer: x\r\n\r\nNEXT")
	for n := 1; n <= len(in); n++ {
		out, done, err := dechunk(in, n)
		require.NoError(t, err, "pieces of %d", n)
		assert.True(t, done)
		assert.Equal(t, "hello 0123456789", string(out), "pieces of %d", n)
	}
	_, _, err := dechunk([]byte("5\r\nhelloXX"), 3)
	require.ErrorIs(t, err, ErrMalformed)
	_, _, err = dechunk([]byte("fffffffffffffffff\r\n"), 4)
	require.ErrorIs(t, err, ErrMalformed)
}

// frames scans in fed in pieces of size n.
func frames(in []byte, n int) ([]string, error) {
	var s SSE
	var out []string
	for i := 0; i < len(in); i += n {
		err := s.Feed(in[i:min(i+n, len(in))], func(d []byte) error { out = append(out, string(d)); return nil })
		if err != nil {
			return out, err
		}
	}
	return out, nil
}

func TestSSE(t *testing.T) {
	t.Parallel()
	in := []byte(": comment\r\ndata: {\"a\":1}\r\n\r\nevent: x\ndata:two\ndata: lines\n\nid: 3\n\ndata: cr\r\rdata: [DONE]\n\n")
	want := []string{`{"a":1}`, "two\nlines", "cr", "[DONE]"}
	for n := 1; n <= len(in); n++ {
		got, err := frames(in, n)
		require.NoError(t, err)
		assert.Equal(t, want, got, "pieces of %d", n)
	}
	var s SSE
	require.NoError(t, s.Feed([]byte("data: half"), func([]byte) error { return nil }))
	assert.True(t, s.Pending())
	stop := errors.New("stop")
	assert.ErrorIs(t, s.Feed([]byte("\n\n"), func([]byte) error { return stop }), stop)

	// Reset: a scanner left inside a frame and a line reads the next
	// stream as a new one does.
	require.NoError(t, s.Feed([]byte("data: left\ndata: par"), func([]byte) error { return nil }))
	require.True(t, s.Pending())
	s.Reset()
	assert.False(t, s.Pending())
	var got []string
	for p := in; len(p) > 0; p = p[min(3, len(p)):] {
		require.NoError(t, s.Feed(p[:min(3, len(p))], func(d []byte) error { got = append(got, string(d)); return nil }))
	}
	assert.Equal(t, want, got)
}

func TestJSON(t *testing.T) {
	t.Parallel()
	frame := []byte(` {"id":"x","choices":[{"index":0,"delta":{"content":"a\"\\\n\u00e9\ud83d\ude00"},"token_ids":[1, 22,-3]}],"usage":null,"k\u0065y":true}`)
	choices, ok, err := Field(frame, "choices")
	require.NoError(t, err)
	require.True(t, ok)
	c0, ok, err := Index(choices, 0)
	require.NoError(t, err)
	require.True(t, ok)
	content, ok, err := Path(c0, "delta", "content")
	require.NoError(t, err)
	require.True(t, ok)
	s, err := AppendString(nil, content)
	require.NoError(t, err)
	assert.Equal(t, "a\"\\\né😀", string(s))
	ids, ok, err := Field(c0, "token_ids")
	require.NoError(t, err)
	require.True(t, ok)
	got, err := AppendInts(nil, ids)
	require.NoError(t, err)
	assert.Equal(t, []int32{1, 22, -3}, got)
	v, ok, err := Field(frame, "key")
	require.NoError(t, err)
	assert.True(t, ok, "an escaped key matches")
	assert.Equal(t, "true", string(v))
	u, ok, err := Field(frame, "usage")
	require.NoError(t, err)
	assert.True(t, ok && IsNull(u))
	_, ok, err = Index(choices, 1)
	require.NoError(t, err)
	assert.False(t, ok)
	_, _, err = Field([]byte(`{"a":[1,2}`), "b")
	assert.ErrorIs(t, err, ErrMalformed)

	vals := make([][]byte, 3)
	require.NoError(t, Fields([]byte(`{"b":1,"a":{"b":3},"b":2}`), []string{"b", "a", "c"}, vals))
	assert.Equal(t, [][]byte{[]byte("1"), []byte(`{"b":3}`), nil}, vals, "the first occurrence of each key, nil for a missing one")
	require.NoError(t, Fields([]byte(`[1]`), []string{"b"}, vals[:1]))
	assert.Nil(t, vals[0], "not an object")
}

func FuzzParseHead(f *testing.F) {
	f.Add([]byte("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"))
	f.Add([]byte("HTTP/1.1 404 Not Found\nContent-Length: 3\n\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		n := HeadEnd(b)
		if n < 0 {
			return
		}
		h, err := ParseHead(b[:n])
		if err == nil && (h.Status < 0 || h.Status > 999 || (h.Chunked && h.ContentLength != -1)) {
			t.Fatalf("head %+v from %q", h, b[:n])
		}
	})
}

func FuzzChunked(f *testing.F) {
	f.Add([]byte("5\r\nhello\r\n0\r\n\r\n"), uint8(1))
	f.Add([]byte("3;x\nabc\n0\nT: 1\n\n"), uint8(2))
	f.Fuzz(func(t *testing.T, b []byte, n uint8) {
		whole, doneWhole, errWhole := dechunk(b, len(b)+1)
		split, doneSplit, errSplit := dechunk(b, int(n)%8+1)
		if (errWhole == nil) != (errSplit == nil) || doneWhole != doneSplit || !bytes.Equal(whole, split) {
			t.Fatalf("split changes the result: %q %v %v vs %q %v %v", whole, doneWhole, errWhole, split, doneSplit, errSplit)
		}
	})
}

func FuzzSSE(f *testing.F) {
	f.Add([]byte("data: {\"a\":1}\n\ndata: x\r\ndata: y\r\n\r\n"), uint8(1))
	f.Add([]byte(": c\rdata:z\r\r"), uint8(3))
	f.Fuzz(func(t *testing.T, b []byte, n uint8) {
		whole, errWhole := frames(b, len(b)+1)
		split, errSplit := frames(b, int(n)%8+1)
		if (errWhole == nil) != (errSplit == nil) || len(whole) != len(split) {
			t.Fatalf("split changes the frames: %q vs %q", whole, split)
		}
		for i := range whole {
			if whole[i] != split[i] {
				t.Fatalf("frame %d: %q vs %q", i, whole[i], split[i])
			}
		}
	})
}

func FuzzJSON(f *testing.F) {
	f.Add([]byte(`{"choices":[{"text":"a\u00e9","token_ids":[1,2]}],"usage":{"completion_tokens":2}}`))
	f.Add([]byte(`{"text":"x","output_ids":[5],"meta_info":{"finish_reason":null}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		valid := json.Valid(b)
		keys := []string{"choices", "text", "output_ids", "usage"}
		vals := make([][]byte, len(keys))
		errAll := Fields(b, keys, vals)
		for i, k := range keys {
			if v, _, err := Field(b, k); err == nil && errAll == nil && !bytes.Equal(v, vals[i]) {
				t.Fatalf("%q: Fields %q, Field %q", k, vals[i], v)
			}
		}
		for _, k := range keys {
			v, ok, err := Field(b, k)
			if valid && err != nil {
				t.Fatalf("valid JSON %q: %v", b, err)
			}
			if !ok {
				continue
			}
			// Invalid UTF-8 passes through (encoding/json would write
			// U+FFFD); the tokenizer sees the bytes the server sent.
			if s, err := AppendString(nil, v); err == nil {
				var want string
				if json.Unmarshal(v, &want) == nil && want != string(s) && !bytes.Contains(v, []byte(`\u`)) && utf8.Valid(v) {
					t.Fatalf("string %q: %q, encoding/json %q", v, s, want)
				}
			}
			_, _ = AppendInts(nil, v)
			_, _, _ = Index(v, 0)
		}
	})
}
