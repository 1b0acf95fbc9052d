package qwen3vl

import (
	"encoding/json"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestParseMetadata: what pydantic 2's ProductMetadata.model_validate_json
// accepts and refuses (each case checked against pydantic 2.13).
func TestParseMetadata(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, reply string
		want        *Metadata // nil: refused
	}{
		{name: "plain", reply: `{"category":"a","brand":"b","is_secondhand":true}`, want: &Metadata{"a", "b", true}},
		{name: "white space and 1", reply: " {\"category\":\"a\",\"brand\":\"b\",\"is_secondhand\":1}\n", want: &Metadata{"a", "b", true}},
		{name: "YES", reply: `{"category":"a","brand":"b","is_secondhand":"YES"}`, want: &Metadata{"a", "b", true}},
		{name: "on", reply: `{"category":"a","brand":"b","is_secondhand":"on"}`, want: &Metadata{"a", "b", true}},
		{name: "F", reply: `{"category":"a","brand":"b","is_secondhand":"F"}`, want: &Metadata{"a", "b", false}},
		{name: "1.0", reply: `{"category":"a","brand":"b","is_secondhand":1.0}`, want: &Metadata{"a", "b", true}},
		{name: "1e0", reply: `{"category":"a","brand":"b","is_secondhand":1e0}`, want: &Metadata{"a", "b", true}},
		{name: "minus zero", reply: `{"category":"a","brand":"b","is_secondhand":-0}`, want: &Metadata{"a", "b", false}},
		{name: "escaped true", reply: `{"category":"a","brand":"b","is_secondhand":"\u0074rue"}`, want: &Metadata{"a", "b", true}},
		{name: "last key wins", reply: `{"category":"a","category":"c","brand":"b","is_secondhand":true}`, want: &Metadata{"c", "b", true}},
		{name: "NUL escape", reply: `{"category":"a\u0000","brand":"b","is_secondhand":false}`, want: &Metadata{"a\x00", "b", false}},
		{name: "surrogate pair", reply: `{"category":"\ud83d\ude00","brand":"b","is_secondhand":false}`, want: &Metadata{"😀", "b", false}},
		{name: "2", reply: `{"category":"a","brand":"b","is_secondhand":2}`},
		{name: "string 2", reply: `{"category":"a","brand":"b","is_secondhand":"2"}`},
		{name: "0.5", reply: `{"category":"a","brand":"b","is_secondhand":0.5}`},
		{name: "string 0.0", reply: `{"category":"a","brand":"b","is_secondhand":"0.0"}`},
		{name: "padded true", reply: `{"category":"a","brand":"b","is_secondhand":" true "}`},
		{name: "null", reply: `{"category":"a","brand":"b","is_secondhand":null}`},
		{name: "number category", reply: `{"category":1,"brand":"b","is_secondhand":true}`},
		{name: "extra field", reply: `{"category":"a","brand":"b","is_secondhand":true,"x":1}`},
		{name: "missing field", reply: `{"category":"a","brand":"b"}`},
		{name: "trailing text", reply: `{"category":"a","brand":"b","is_secondhand":true}x`},
		{name: "two objects", reply: `{"category":"a","brand":"b","is_secondhand":true} {}`},
		{name: "trailing comma", reply: `{"category":"a","brand":"b","is_secondhand":true,}`},
		{name: "array", reply: `[1]`},
		{name: "JSON null", reply: `null`},
		{name: "empty", reply: ``},
		{name: "NaN", reply: `{"category":"a","brand":"b","is_secondhand":NaN}`},
		{name: "lone high surrogate", reply: `{"category":"\ud800","brand":"b","is_secondhand":true}`},
		{name: "lone low surrogate", reply: `{"category":"\udc00x","brand":"b","is_secondhand":true}`},
		{name: "fenced", reply: "```json\n{\"category\":\"a\",\"brand\":\"b\",\"is_secondhand\":true}\n```"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseMetadata([]byte(tt.reply))
			if tt.want == nil {
				require.ErrorIs(t, err, ErrSchema)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, *tt.want, got)
		})
	}
}

func FuzzParseMetadata(f *testing.F) {
	f.Add([]byte(`{"category":"a > b","brand":"b","is_secondhand":"yes"}`))
	f.Add([]byte(`{"category":"\ud83d\ude00","brand":"\\u","is_secondhand":1e0}`))
	f.Add([]byte(`[{"x": "\ud800"}]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := ParseMetadata(b)
		if err != nil {
			return
		}
		// What is accepted reads back the same once written again.
		again, err := json.Marshal(map[string]any{"category": m.Category, "brand": m.Brand, "is_secondhand": m.Secondhand})
		require.NoError(t, err)
		m2, err := ParseMetadata(again)
		require.NoError(t, err)
		if utf8.ValidString(m.Category) && utf8.ValidString(m.Brand) {
			assert.Equal(t, m, m2)
		}
	})
}
