package backend

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/engine"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/goengine"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/zoo"
	"github.com/mlperf-host/mlperf-host/sdk"
)

// toneFeatures are log-mel features [mels, 3000] in the code
// zoo.WhisperSignature reads: frame 5 the pilot (0), character c of text
// at frame 10(p+1)+5 -(c+1)/40, every other frame -2.
func toneFeatures(mels int, text string) []byte {
	v := make([]float32, mels*3000)
	for i := range v {
		v[i] = -2
	}
	v[5] = 0
	for p := range len(text) {
		v[10*(p+1)+5] = -float32(strings.IndexByte(whisperAlphabet, text[p])+1) / 40
	}
	return f32s(v...)
}

func i64s(v ...int64) []byte {
	var b []byte
	for _, x := range v {
		b = binary.LittleEndian.AppendUint64(b, uint64(x))
	}
	return b
}

// TestTranscriptResponse: a whisper run feeds the features to the
// encoder, starts the tokens with decoder_prompt, stops at end of text
// and answers the transcript as int64 alphabet indices, the end of text
// left out but counted as a token.
func TestTranscriptResponse(t *testing.T) {
	t.Parallel()
	forEngines(t, func(t *testing.T, e modelEngine) {
		schema := []sdk.TensorSpec{{Name: "input_features", DType: abi.Float32, Shape: []int{80, 3000}}}
		b := loadBench(t, e, zoo.WhisperSignature(80), "whisper", schema,
			map[string]string{OptDecoderPrompt: "43", OptEOSTokenID: "42"})
		assert.Equal(t, 200, b.cfg.maxNewTokens, "the reference's max_tokens")
		assertTranscripts(t, b, schema)
	})
}

// assertTranscripts transcribes three utterances of 80-bin tone features
// on b, which serves the tone code with prompt 43 and end of text 42.
func assertTranscripts(t *testing.T, b *Backend, schema []sdk.TensorSpec) {
	t.Helper()
	c := &tokenCompleter{completer: newCompleter()}
	s := func(id uint64, text string) sdk.Sample {
		return tensorSample(id, schema, [][]int{{80, 3000}}, [][]byte{toneFeatures(80, text)})
	}
	require.NoError(t, b.Infer(context.Background(), sdk.Query{Samples: []sdk.Sample{s(0, "it's 5%"), s(1, ""), s(2, "ok")}}, c))
	assert.Empty(t, c.failed)
	assert.Equal(t, i64s(9, 20, 27, 19, 0, 33, 39), c.done[0])
	assert.Equal(t, i64s(9), c.first[0])
	assert.Equal(t, int64(8), c.tokens[0])
	// Silence: end of text first, an empty transcript of one token.
	assert.Empty(t, c.done[1])
	assert.Equal(t, int64(1), c.tokens[1])
	assert.Equal(t, i64s(15, 11), c.done[2])
}

// TestTranscriptDefaults: whisper's response, prompt, end of text and
// length are the reference's, in whisper-large-v3's ids.
func TestTranscriptDefaults(t *testing.T) {
	t.Parallel()
	var c config
	benchmarkDefaults(&c, "whisper", map[string]string{})
	assert.Equal(t, ResponseTranscript, c.response)
	assert.Equal(t, []int64{50258, 50259, 50360, 50364}, c.decoderPrompt)
	assert.Equal(t, []int64{50257}, c.eos)
	assert.Equal(t, 200, c.maxNewTokens)
}

func TestTranscriptErrors(t *testing.T) {
	t.Parallel()
	mel := []sdk.TensorSpec{{Name: "input_features", DType: abi.Float32, Shape: []int{80, 3000}}}
	for _, tt := range []struct {
		name   string
		model  []byte
		schema []sdk.TensorSpec
		opts   map[string]string
		want   string
	}{
		{name: "a decoder alone", model: zoo.DecoderSignature(8), schema: []sdk.TensorSpec{{Name: "input_ids", DType: abi.Int32, Shape: []int{-1}}},
			opts: map[string]string{OptResponse: ResponseTranscript, OptDecoderPrompt: "1"}, want: "want an encoder-decoder"},
		{name: "no prompt", model: zoo.WhisperSignature(80), schema: mel,
			opts: map[string]string{OptResponse: ResponseTranscript}, want: "option decoder_prompt is empty"},
		{name: "bad prompt", model: zoo.WhisperSignature(80), schema: mel,
			opts: map[string]string{OptDecoderPrompt: "x"}, want: `option decoder_prompt="x": want token ids`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := New(goengine.New())
			err := b.Load(context.Background(), sdk.Model{Bytes: tt.model, Options: tt.opts, Inputs: tt.schema})
			assert.ErrorContains(t, err, tt.want)
		})
	}
}

// TestTokenText: a byte-level BPE vocabulary decodes as the reference
// SUT's vLLM text, special tokens skipped, then lower case, stripped and
// mapped onto the alphabet ("é", "." and "!" dropped); a malformed
// tokenizer.json is an error naming the field.
func TestTokenText(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "tokenizer.json")
	require.NoError(t, os.WriteFile(path, []byte(`{
		"added_tokens": [{"id": 8, "content": "<|endoftext|>", "special": true}, {"id": 9, "content": "!", "special": false}],
		"decoder": {"type": "ByteLevel"},
		"model": {"type": "BPE", "merges": [], "vocab": {"Ġhello": 0, "ĠWorld": 1, ".": 2, "Ġit": 3, "'s": 4, "Ġ5": 5, "%": 6, "Ã©": 7,
			"<|endoftext|>": 8, "!": 9, "Ċ": 10}}}`), 0o644))
	tt, err := readTokenText(path)
	require.NoError(t, err)
	assert.Equal(t, " hello World.é!\n", tt.text([]int64{0, 1, 2, 8, 7, 9, 10}))
	idx := func(s string) []byte {
		var v []int64
		for _, r := range s {
			v = append(v, int64(strings.IndexRune(whisperAlphabet, r)))
		}
		return i64s(v...)
	}
	assert.Equal(t, idx("hello world"), tt.transcript(nil, []int64{0, 1, 2, 8, 7, 9, 10}))
	assert.Equal(t, idx("it's 5%"), tt.transcript(nil, []int64{3, 4, 5, 6, 99}))

	require.NoError(t, os.WriteFile(path, []byte(`{"decoder": {"type": "Metaspace"}, "model": {"vocab": {"a": 0}}}`), 0o644))
	_, err = readTokenText(path)
	assert.ErrorContains(t, err, "model.merges: missing")
}

// TestTranscriptTokenizer: with a tokenizer, the model's tokens are
// decoded: the signature model's token v read as the vocabulary's v.
func TestTranscriptTokenizer(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "tokenizer.json")
	vocab := map[string]int{}
	for i, r := range whisperAlphabet {
		tok := string(r)
		if r == ' ' {
			tok = "Ġ"
		}
		vocab[strings.ToUpper(tok)] = i // upper case: the transcript is lowered
	}
	b, err := json.Marshal(map[string]any{"decoder": map[string]string{"type": "ByteLevel"}, "model": map[string]any{"vocab": vocab, "merges": []string{}},
		"added_tokens": []map[string]any{{"id": 42, "content": "<|endoftext|>", "special": true}}})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, b, 0o644))
	schema := []sdk.TensorSpec{{Name: "input_features", DType: abi.Float32, Shape: []int{80, 3000}}}
	be := loadBench(t, modelEngines(t)[0], zoo.WhisperSignature(80), "whisper", schema,
		map[string]string{OptDecoderPrompt: "43", OptEOSTokenID: "42", OptTokenizer: path})
	c := &tokenCompleter{completer: newCompleter()}
	s := tensorSample(0, schema, [][]int{{80, 3000}}, [][]byte{toneFeatures(80, " ab c ")})
	require.NoError(t, be.Infer(context.Background(), sdk.Query{Samples: []sdk.Sample{s}}, c))
	assert.Equal(t, i64s(1, 2, 0, 3), c.done[0], "stripped")
	assert.Equal(t, int64(7), c.tokens[0])

	_, err = loadTranscriber(t, map[string]string{OptDecoderPrompt: "43", OptTokenizer: filepath.Join(t.TempDir(), "none.json")})
	assert.ErrorContains(t, err, "option tokenizer: tokenizer: open")
}

// loadTranscriber loads the whisper signature model with opts.
func loadTranscriber(t *testing.T, opts map[string]string) (*Backend, error) {
	t.Helper()
	b := New(goengine.New())
	t.Cleanup(func() { _ = b.Close() })
	return b, b.Load(context.Background(), sdk.Model{Bytes: zoo.WhisperSignature(80), Options: opts,
		Inputs: []sdk.TensorSpec{{Name: "input_features", DType: abi.Float32, Shape: []int{80, 3000}}}, Run: sdk.Run{Benchmark: "whisper"}})
}

// TestAudioToWhisperEncoderNamesTheSetting: a LibriSpeech data set of audio
// fed to a Whisper encoder fails at Load, naming the setting that gives the
// encoder its log-mel features; other mismatches get no such hint.
func TestAudioToWhisperEncoderNamesTheSetting(t *testing.T) {
	t.Parallel()
	audio := []sdk.TensorSpec{{Name: "audio", DType: abi.Float32, Shape: []int{abi.Varies}}}
	for _, tc := range []struct {
		name string
		in   engine.TensorDesc
		want string
	}{
		{name: "large-v3", in: engine.TensorDesc{Name: "input_features", DType: engine.Float32, Shape: []int64{-1, 128, 3000}}, want: "audio_features=mel128"},
		{name: "80 bins", in: engine.TensorDesc{Name: "input_features", DType: engine.Float32, Shape: []int64{1, 80, 3000}}, want: "audio_features=mel80"},
		{name: "not whisper", in: engine.TensorDesc{Name: "x", DType: engine.Float32, Shape: []int64{-1, 3, 224, 224}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := newFeeds([]engine.TensorDesc{tc.in}, audio, false)
			require.Error(t, err)
			if tc.want == "" {
				assert.NotContains(t, err.Error(), "audio_features")
				return
			}
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}
