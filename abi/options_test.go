package abi_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/abi/backendv1"
)

func testSchema() []*backendv1.OptionSpec {
	return []*backendv1.OptionSpec{
		{Name: "max_batch", Type: "uint", DefaultValue: "64", Doc: "samples per batch"},
		{Name: "batch_timeout", Type: "duration", DefaultValue: "0s"},
		{Name: "precision", Type: "enum", Allowed: []string{"fp16", "int8"}},
		{Name: "graphs", Type: "bool"},
		{Name: "scale", Type: "float"},
		{Name: "offset", Type: "int"},
		{Name: "engine"},
	}
}

func TestCheckOptions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		opts map[string]string
		want []string // substrings of the error; none: valid
	}{
		{name: "valid", opts: map[string]string{"max_batch": "8", "batch_timeout": "2ms", "precision": "int8",
			"graphs": "true", "scale": "0.5", "offset": "-3", "engine": "x.plan"}},
		{name: "misspelt", opts: map[string]string{"max_bach": "8"}, want: []string{`unknown option "max_bach"`, `did you mean max_batch?`}},
		// A prefix of a known name is suggested even past the edit distance.
		{name: "prefix", opts: map[string]string{"batch": "8"}, want: []string{`did you mean max_batch or batch_timeout?`}},
		{name: "nothing close", opts: map[string]string{"zzz": "1"}, want: []string{`unknown option "zzz"; the plugin's options are batch_timeout, engine`}},
		{name: "bad uint", opts: map[string]string{"max_batch": "-1"}, want: []string{`option max_batch="-1": want a non-negative integer`}},
		{name: "bad duration", opts: map[string]string{"batch_timeout": "2"}, want: []string{`want a duration`}},
		{name: "bad enum", opts: map[string]string{"precision": "fp8"}, want: []string{`want one of fp16, int8`}},
		{name: "bad bool", opts: map[string]string{"graphs": "yes"}, want: []string{`want true, false, 1 or 0`}},
		{name: "every error", opts: map[string]string{"graphs": "yes", "scale": "x"}, want: []string{`graphs`, `scale`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := abi.CheckOptions(testSchema(), tt.opts)
			if len(tt.want) == 0 {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			var oe *abi.OptionError
			assert.ErrorAs(t, err, &oe)
			for _, w := range tt.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
	assert.NoError(t, abi.CheckOptions(nil, map[string]string{"anything": "goes"}), "no schema, no check")
}

func TestCheckOptionSchema(t *testing.T) {
	t.Parallel()
	require.NoError(t, abi.CheckOptionSchema(testSchema()))
	tests := []struct {
		name   string
		schema []*backendv1.OptionSpec
		want   string
	}{
		{name: "no name", schema: []*backendv1.OptionSpec{{Type: "int"}}, want: "no name"},
		{name: "twice", schema: []*backendv1.OptionSpec{{Name: "a"}, {Name: "a"}}, want: "declared twice"},
		{name: "bad type", schema: []*backendv1.OptionSpec{{Name: "a", Type: "number"}}, want: `type "number"`},
		{name: "empty enum", schema: []*backendv1.OptionSpec{{Name: "a", Type: "enum"}}, want: "no allowed values"},
		{name: "bad default", schema: []*backendv1.OptionSpec{{Name: "a", Type: "int", DefaultValue: "x"}}, want: `default "x"`},
		{name: "equals sign", schema: []*backendv1.OptionSpec{{Name: "a=b"}}, want: "'='"},
		{name: "long doc", schema: []*backendv1.OptionSpec{{Name: "a", Doc: strings.Repeat("x", abi.MaxOptionText+1)}}, want: "longer than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.ErrorContains(t, abi.CheckOptionSchema(tt.schema), tt.want)
		})
	}
}

func TestCloseMatches(t *testing.T) {
	t.Parallel()
	names := []string{"streams", "max_batch", "batch_timeout", "devices", "precision"}
	assert.Equal(t, []string{"streams"}, abi.CloseMatches("stream", names))
	assert.Equal(t, []string{"devices"}, abi.CloseMatches("Devices", names), "case is no distance")
	assert.Equal(t, []string{"precision"}, abi.CloseMatches("precison", names))
	assert.Empty(t, abi.CloseMatches("xyz", names))
	assert.Empty(t, abi.CloseMatches("streams", names), "the name itself is no suggestion")
}

// FuzzCheckOptions feeds a schema and options, both as a plugin or a user
// may write them: no input makes the checks panic, a valid schema's
// declared defaults pass, and every error is an OptionError.
func FuzzCheckOptions(f *testing.F) {
	f.Add("max_batch", "uint", "64", "", "max_bach", "8")
	f.Add("p", "enum", "a", "a,b", "p", "c")
	f.Add("", "duration", "x", "", "", "")
	f.Fuzz(func(t *testing.T, name, typ, def, allowed, key, value string) {
		var al []string
		if allowed != "" {
			al = strings.Split(allowed, ",")
		}
		schema := []*backendv1.OptionSpec{{Name: name, Type: typ, DefaultValue: def, Allowed: al}}
		if abi.CheckOptionSchema(schema) == nil && def != "" {
			require.NoError(t, abi.CheckOptions(schema, map[string]string{name: def}))
		}
		err := abi.CheckOptions(schema, map[string]string{key: value})
		if err != nil {
			var oe *abi.OptionError
			require.ErrorAs(t, err, &oe)
			_ = oe.Error()
		}
		_ = abi.CloseMatches(key, []string{name, def, value})
	})
}
