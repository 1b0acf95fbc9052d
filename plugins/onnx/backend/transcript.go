package backend

import (
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/engine"
	"github.com/mlperf-host/mlperf-host/sdk"
)

// whisperAlphabet is the Whisper benchmark's 42 labels: a transcript is
// answered as its characters' indices in it (speech2text's reference
// SUT and accuracy_eval.py).
const whisperAlphabet = " abcdefghijklmnopqrstuvwxyz'0123456789$%+-"

// transcriptInputs splits an encoder-decoder's inputs (response=transcript):
// the token ids, the one integer input of rank 2 that no data set tensor
// names, and the others, fed from the sample.
func transcriptInputs(ins []engine.TensorDesc, schema []sdk.TensorSpec) (int, []engine.TensorDesc, []int, error) {
	tokenIn := -1
	var enc []engine.TensorDesc
	var encAt []int
	for i, in := range ins {
		named := slices.ContainsFunc(schema, func(s sdk.TensorSpec) bool { return s.Name == in.Name })
		if !named && len(in.Shape) == 2 && (in.DType == engine.Int64 || in.DType == engine.Int32) {
			if tokenIn >= 0 {
				return 0, nil, nil, fmt.Errorf("response %s: inputs %s and %s could both be the decoder's token ids", ResponseTranscript, ins[tokenIn].Name, in.Name)
			}
			tokenIn = i
			continue
		}
		enc, encAt = append(enc, in), append(encAt, i)
	}
	if tokenIn < 0 || len(enc) == 0 {
		return 0, nil, nil, fmt.Errorf("response %s: want an encoder-decoder: the decoder's token ids [N, T] (an integer input no data set tensor names) and the encoder's inputs", ResponseTranscript)
	}
	return tokenIn, enc, encAt, nil
}

// newTranscriber is the generator of response=transcript with one graph
// (newTranscription's), its encoder inputs fed from the sample at every
// step.
func newTranscriber(c config, enc feeds, ins, outs []engine.TensorDesc, tokenIn int, encAt []int) (*generator, error) {
	g, err := newTranscription(c, enc)
	if err != nil {
		return nil, err
	}
	g.in, g.tokenIn, g.encAt = ins[tokenIn], tokenIn, encAt
	return g, g.setLogits(ResponseTranscript, outs[0])
}

// newTranscription is the generator of response=transcript without its
// model: the decoder prompt option starts every generation, the encoder
// inputs are fed from the sample, and the tokens are answered as a
// transcript: decoded with the tokenizer option's vocabulary, or taken
// as the alphabet's indices.
func newTranscription(c config, enc feeds) (*generator, error) {
	if len(c.decoderPrompt) == 0 {
		return nil, fmt.Errorf("response %s: option %s is empty: the tokens that start a generation", ResponseTranscript, OptDecoderPrompt)
	}
	if enc.layout != stackSamples {
		return nil, fmt.Errorf("response %s: the encoder's inputs take one sample each", ResponseTranscript)
	}
	g := &generator{maxNew: c.maxNewTokens, eos: c.eos, enc: &enc, prompt: c.decoderPrompt, answer: alphabetTranscript}
	if c.tokenizer != "" {
		tt, err := readTokenText(c.tokenizer)
		if err != nil {
			return nil, fmt.Errorf("option %s: %w", OptTokenizer, err)
		}
		g.answer = tt.transcript
	}
	return g, nil
}

// alphabetTranscript answers tokens that are the alphabet's indices (the
// vocabulary of a model whose tokens are characters) as int64, dropping
// every other token (end of text and the other special ones): the
// response the reference SUT writes after mapping its text onto the
// alphabet.
func alphabetTranscript(dst []byte, tokens []int64) []byte {
	for _, t := range tokens {
		if t >= 0 && t < int64(len(whisperAlphabet)) {
			dst = binary.LittleEndian.AppendUint64(dst, uint64(t))
		}
	}
	return dst
}

// melHint tells a user who fed a LibriSpeech data set's audio to a
// Whisper encoder, which takes log-mel features [N, mels, 3000], the host
// setting that makes the data set hand the features instead.
func melHint(in engine.TensorDesc, spec sdk.TensorSpec) string {
	if spec.Name != "audio" || len(in.Shape) != 3 || in.Shape[2] != 3000 || (in.Shape[1] != 80 && in.Shape[1] != 128) {
		return ""
	}
	return fmt.Sprintf(" (a Whisper encoder takes log-mel features: run with audio_features=mel%d)", in.Shape[1])
}
