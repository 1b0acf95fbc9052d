//go:build linux || darwin

package backend

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/engine"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/goengine"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/ort"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/zoo"
	"github.com/mlperf-host/mlperf-host/sdk"
)

// ortBench loads a model for a benchmark on the ort engine, skipping
// where ONNX Runtime cannot be loaded: the key-value-cache models need
// operators the go engine lacks.
func ortBench(t *testing.T, m sdk.Model) *Backend {
	t.Helper()
	return loadOrt(t, ortLibrary(t), m)
}

// TestCachedTokens: a decoder with a key-value cache generates as the
// one-graph decoder does, the prompt first with an empty cache, then one
// token a step with the cache, the mask and the position grown: the
// model answers the last token plus the sequence's first token, so a
// prompt that starts with 1 counts up and one that starts with 2 counts
// by two, which only a cache kept across steps gives.
func TestCachedTokens(t *testing.T) {
	t.Parallel()
	schema := []sdk.TensorSpec{{Name: "input_ids", DType: abi.Int32, Shape: []int{-1}}}
	b := ortBench(t, sdk.Model{Bytes: zoo.DecoderKVSignature(64, 2), Inputs: schema, Run: sdk.Run{Benchmark: "llama2-70b"},
		Options: map[string]string{OptEOSTokenID: "60", OptMaxNewTokens: "8"}})
	require.NotNil(t, b.gen.kv)
	require.NoError(t, b.Warmup(context.Background()))
	c := &tokenCompleter{completer: newCompleter()}
	p := func(id uint64, ids ...int) sdk.Sample {
		return tensorSample(id, schema, [][]int{{len(ids)}}, [][]byte{i32s(ids...)})
	}
	require.NoError(t, b.Infer(context.Background(), sdk.Query{Samples: []sdk.Sample{p(0, 1, 3, 55), p(1, 2, 10), p(2, 1, 63)}}, c))
	assert.Empty(t, c.failed)
	assert.Equal(t, i32s(56, 57, 58, 59, 60), c.done[0])
	assert.Equal(t, i32s(56), c.first[0])
	assert.Equal(t, int64(5), c.tokens[0])
	assert.Equal(t, i32s(12, 14, 16, 18, 20, 22, 24, 26), c.done[1])
	assert.Equal(t, int64(8), c.tokens[1])
	// Beyond the vocabulary the nearest token, the last, repeats.
	assert.Equal(t, i32s(63, 63, 63, 63, 63, 63, 63, 63), c.done[2])
}

// TestCachedTranscript: Whisper as optimum exports it, a directory of an
// encoder and a merged decoder with a key-value cache, transcribes as the
// one-graph model does: the encoder once per sample, the decoder's
// cross-attention cache kept from its first step.
func TestCachedTranscript(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, encoderFile), zoo.WhisperEncoderSignature(80), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, decoderFile), zoo.WhisperDecoderKVSignature(), 0o644))
	schema := []sdk.TensorSpec{{Name: "input_features", DType: abi.Float32, Shape: []int{80, 3000}}}
	b := ortBench(t, sdk.Model{Path: dir, Inputs: schema, Run: sdk.Run{Benchmark: "whisper"},
		Options: map[string]string{OptDecoderPrompt: "43", OptEOSTokenID: "42"}})
	require.NoError(t, b.Warmup(context.Background()))
	assertTranscripts(t, b, schema)
}

// TestCachedErrors: a key-value-cache model the backend cannot run says
// why: an operator the go engine lacks (and the engine that has it), a
// directory without the decoder, a cache without its present, a
// directory's model for another response.
func TestCachedErrors(t *testing.T) {
	t.Parallel()
	tokens := []sdk.TensorSpec{{Name: "input_ids", DType: abi.Int32, Shape: []int{-1}}}
	mel := []sdk.TensorSpec{{Name: "input_features", DType: abi.Float32, Shape: []int{80, 3000}}}
	encoderOnly := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(encoderOnly, encoderFile), zoo.WhisperEncoderSignature(80), 0o644))
	both := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(both, encoderFile), zoo.WhisperEncoderSignature(80), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(both, decoderFile), zoo.WhisperDecoderKVSignature(), 0o644))
	for _, tt := range []struct {
		name  string
		model sdk.Model
		want  string
	}{
		{name: "go engine", model: sdk.Model{Bytes: zoo.DecoderKVSignature(8, 2), Inputs: tokens,
			Options: map[string]string{OptEngine: "go", OptResponse: ResponseTokens}},
			want: `operator "ReduceSum" is not implemented (the ort engine runs the operators and types of ONNX Runtime: --set onnx.engine=ort)`},
		{name: "go engine, merged decoder", model: sdk.Model{Path: both, Inputs: mel, Run: sdk.Run{Benchmark: "whisper"}, Options: map[string]string{OptEngine: "go"}},
			want: `load the decoder with the go engine: unsupported by engine: input "use_cache_branch" of type BOOL (the ort engine`},
		{name: "no decoder", model: sdk.Model{Path: encoderOnly, Inputs: mel, Run: sdk.Run{Benchmark: "whisper"}},
			want: "want encoder_model.onnx and decoder_model_merged.onnx"},
		{name: "not a transcript", model: sdk.Model{Path: both, Inputs: mel, Options: map[string]string{OptEngine: "ort", OptResponse: ResponseOutputs}},
			want: "needs response=transcript"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if tt.model.Options[OptEngine] == "ort" {
				tt.model.Options[ort.OptLibrary] = ortLibrary(t)
			}
			b := New(goengine.New(), ort.New())
			assert.ErrorContains(t, b.Load(context.Background(), tt.model), tt.want)
		})
	}
}

// TestFindKV: optimum's names make a cache; a past without its present,
// a cache of free heads or an input of another name are errors naming
// the input.
func TestFindKV(t *testing.T) {
	t.Parallel()
	ids := engine.TensorDesc{Name: "input_ids", DType: engine.Int64, Shape: []int64{-1, -1}}
	past := engine.TensorDesc{Name: "past_key_values.0.key", DType: engine.Float32, Shape: []int64{-1, 8, -1, 64}}
	present := engine.TensorDesc{Name: "present.0.key", DType: engine.Float32, Shape: []int64{-1, 8, -1, 64}}
	logits := engine.TensorDesc{Name: "logits", DType: engine.Float32, Shape: []int64{-1, -1, 32}}
	k, err := findKV([]engine.TensorDesc{ids, past}, []engine.TensorDesc{logits, present})
	require.NoError(t, err)
	assert.Equal(t, []kvPair{{in: 1, out: 1, empty: []int64{1, 8, 0, 64}}}, k.past)
	k, err = findKV([]engine.TensorDesc{ids}, []engine.TensorDesc{logits})
	require.NoError(t, err)
	assert.Nil(t, k, "no past: no cache")
	freeHeads := past
	freeHeads.Shape = []int64{-1, -1, -1, 64}
	for _, tt := range []struct {
		name     string
		ins, out []engine.TensorDesc
		want     string
	}{
		{name: "no present", ins: []engine.TensorDesc{ids, past}, out: []engine.TensorDesc{logits}, want: "input past_key_values.0.key: the model has no output present.0.key"},
		{name: "free heads", ins: []engine.TensorDesc{ids, freeHeads}, out: []engine.TensorDesc{logits, present}, want: "fixed heads and head size"},
		{name: "other input", ins: []engine.TensorDesc{ids, past, {Name: "token_type_ids"}}, out: []engine.TensorDesc{logits, present}, want: "input token_type_ids: a decoder with a key-value cache takes"},
		{name: "no ids", ins: []engine.TensorDesc{past}, out: []engine.TensorDesc{logits, present}, want: "needs an input input_ids"},
		{name: "no logits", ins: []engine.TensorDesc{ids, past}, out: []engine.TensorDesc{present}, want: "needs an output logits"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := findKV(tt.ins, tt.out)
			assert.ErrorContains(t, err, tt.want)
		})
	}
}
