package manifest

import (
	"errors"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const good = `{
  "name": "echo",
  "version": "0.1.0",
  "kind": "wasm",
  "abi_major": 1,
  "entry": "echo.wasm",
  "sha256": "9F86D081884C7D659A2FEAA0C55AD015A3BF4F1B2B0B822CD15D6C15B0F00A08",
  "memory_limit_mib": 512,
  "description": "null backend"
}`

func TestParseGood(t *testing.T) {
	t.Parallel()
	m, err := Parse("plugin.json", strings.NewReader(good))
	require.NoError(t, err)
	assert.Equal(t, Manifest{
		Name: "echo", Version: "0.1.0", Kind: KindWASM, ABIMajor: 1, Entry: "echo.wasm",
		SHA256:         "9F86D081884C7D659A2FEAA0C55AD015A3BF4F1B2B0B822CD15D6C15B0F00A08",
		MemoryLimitMiB: 512, Description: "null backend",
	}, m)
	assert.Len(t, m.Checksum(), 32)
	assert.Equal(t, uint32(512*16), m.MemoryLimitPages())
}

func TestParseMinimalProcess(t *testing.T) {
	t.Parallel()
	m, err := Parse("p.json", strings.NewReader(`{"name":"trt","version":"10.0","kind":"process","abi_major":1,"entry":"bin/trt","reattachable":true}`))
	require.NoError(t, err)
	assert.Nil(t, m.Checksum())
	assert.Zero(t, m.MemoryLimitPages())
	assert.True(t, m.Reattachable)
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	base := `"name":"echo","version":"1","kind":"wasm","abi_major":1,"entry":"e.wasm"`
	tests := []struct {
		name string
		in   string
		want []string // substrings of the error, in order of appearance
	}{
		{name: "empty", in: "", want: []string{"m.json: empty file"}},
		{name: "not an object", in: `[1]`, want: []string{"m.json:1:1:", "want a JSON object"}},
		{name: "syntax", in: "{\n  \"name\": \"echo\",\n  oops\n}", want: []string{"m.json:3:3:", "invalid character 'o'"}},
		{name: "truncated", in: `{"name": "echo"`, want: []string{"unexpected end of file"}},
		{name: "wrong type", in: "{\n\"abi_major\": \"1\"}", want: []string{"m.json:2:", `field "abi_major"`, "want a JSON number, got string"}},
		{name: "unknown field (typo)", in: `{` + base + `,"memory_limit_mb":4}`, want: []string{`field "memory_limit_mb": unknown field (known: name, version, kind`}},
		{name: "trailing data", in: `{` + base + `} {}`, want: []string{"unexpected data after the JSON object"}},
		{name: "every field missing", in: `{}`, want: []string{`field "name": missing`, `field "version": missing`, `field "kind": missing`, `field "abi_major": missing`, `field "entry": missing`}},
		{name: "bad name", in: `{"name":"Echo Plugin","version":"1","kind":"wasm","abi_major":1,"entry":"e"}`, want: []string{"m.json:1:2:", `"Echo Plugin" is not a plugin name`}},
		{name: "bad kind", in: `{"name":"e","version":"1","kind":"wsm","abi_major":1,"entry":"e"}`, want: []string{`field "kind": want "wasm" or "process", got "wsm"`}},
		{name: "version with space", in: `{"name":"e","version":"1 beta","kind":"wasm","abi_major":1,"entry":"e"}`, want: []string{`"1 beta" is not a version`}},
		{name: "absolute entry", in: `{"name":"e","version":"1","kind":"wasm","abi_major":1,"entry":"/bin/sh"}`, want: []string{`"/bin/sh": must be relative`}},
		{name: "escaping entry", in: `{"name":"e","version":"1","kind":"wasm","abi_major":1,"entry":"../x.wasm"}`, want: []string{"clean path inside"}},
		{name: "unclean entry", in: `{"name":"e","version":"1","kind":"wasm","abi_major":1,"entry":"a/../b"}`, want: []string{"clean path inside"}},
		{name: "backslash entry", in: `{"name":"e","version":"1","kind":"wasm","abi_major":1,"entry":"a\\b"}`, want: []string{"use forward slashes"}},
		{name: "short sha256", in: `{` + base + `,"sha256":"abc"}`, want: []string{`field "sha256": want 64 hexadecimal digits`}},
		{name: "memory on process", in: `{"name":"e","version":"1","kind":"process","abi_major":1,"entry":"e","memory_limit_mib":5}`, want: []string{`field "memory_limit_mib": only for kind "wasm"`}},
		{name: "memory too large", in: `{` + base + `,"memory_limit_mib":5000}`, want: []string{"want 1 to 4096, got 5000"}},
		{name: "negative memory", in: `{` + base + `,"memory_limit_mib":-1}`, want: []string{"want 1 to 4096, got -1"}},
		{name: "reattachable wasm", in: `{` + base + `,"reattachable":true}`, want: []string{`field "reattachable": only for kind "process"`}},
		{name: "two-line description", in: `{` + base + `,"description":"a\nb"}`, want: []string{"must be one line"}},
		{name: "zero abi", in: `{"name":"e","version":"1","kind":"wasm","abi_major":0,"entry":"e"}`, want: []string{`field "abi_major": missing or not positive`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Parse("m.json", strings.NewReader(tt.in))
			require.Error(t, err)
			require.ErrorIs(t, err, ErrInvalid)
			msg := err.Error()
			at := 0
			for _, w := range tt.want {
				i := strings.Index(msg[at:], w)
				require.GreaterOrEqual(t, i, 0, "want %q after offset %d in:\n%s", w, at, msg)
				at += i + len(w)
			}
			var e *Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, "m.json", e.File)
		})
	}
}

func TestParseTooLarge(t *testing.T) {
	t.Parallel()
	_, err := Parse("big.json", strings.NewReader(`{"description":"`+strings.Repeat("x", maxSize)+`"}`))
	require.ErrorIs(t, err, ErrInvalid)
	assert.ErrorContains(t, err, "larger than 65536 bytes")
}

func TestParseReadError(t *testing.T) {
	t.Parallel()
	_, err := Parse("r.json", iotest.ErrReader(errors.New("disk on fire")))
	require.ErrorIs(t, err, ErrInvalid)
	assert.EqualError(t, err, "r.json: read: disk on fire")
}

func TestPosition(t *testing.T) {
	t.Parallel()
	b := []byte("ab\ncd\n\nef")
	tests := []struct {
		name      string
		off       int64
		line, col int
	}{
		{name: "start", off: 0, line: 1, col: 1},
		{name: "second line", off: 4, line: 2, col: 2},
		{name: "empty line", off: 6, line: 3, col: 1},
		{name: "past the end", off: 100, line: 4, col: 3},
		{name: "negative", off: -5, line: 1, col: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			line, col := position(b, tt.off)
			assert.Equal(t, []int{tt.line, tt.col}, []int{line, col})
		})
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(good))
	f.Add([]byte(`{"name":"trt","version":"10.0","kind":"process","abi_major":1,"entry":"bin/trt","reattachable":true}`))
	f.Add([]byte(`{"name":"x","memory_limit_mb":1}`))
	f.Add([]byte("{\n\"abi_major\": \"1\"}"))
	f.Add([]byte(`{} []`))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := Parse("f.json", strings.NewReader(string(b)))
		if err != nil {
			require.ErrorIs(t, err, ErrInvalid)
			require.NotEmpty(t, err.Error())
			return
		}
		// Whatever parses must satisfy every rule.
		require.NoError(t, m.Validate())
		require.NotEmpty(t, m.Name)
		require.Contains(t, []Kind{KindWASM, KindProcess}, m.Kind)
	})
}
