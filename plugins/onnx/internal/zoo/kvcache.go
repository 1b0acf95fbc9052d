package zoo

import (
	"strconv"

	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/onnxpb"
)

// The key-value-cache models below have the inputs and outputs of Hugging
// Face optimum's ONNX exports of decoders with a cache (a decoder-only
// LLM's model.onnx; Whisper's encoder_model.onnx and
// decoder_model_merged.onnx), one head of one element per layer, and
// answer what the cache holds: a generator that feeds the cache wrongly
// gets other tokens.

// kvLen is the sequence length of a present tensor [N, 1, L, 1] as a
// float [1].
func (b *builder) kvLen(present string) string {
	return b.cast(b.gather(b.node("Shape", []string{present}), 0, 2), onnxpb.Float)
}

// kvAppend is a present tensor: the past [N, 1, P, 1] with x [N, T]
// (as float [N, 1, T, 1]) appended along the sequence.
func (b *builder) kvAppend(past, x string) string {
	x = b.node("Unsqueeze", []string{b.cast(x, onnxpb.Float), b.ints([]int64{2}, 1, 3)})
	return b.node("Concat", []string{past, x}, onnxpb.IntAttr("axis", 2))
}

// kvValue is a past or present tensor's value info.
func kvValue(name, seq string) onnxpb.ValueInfo {
	return valueInfo(name, onnxpb.Float, free("N"), fixed(1), free(seq), fixed(1))
}

// nearestLogits are logits [N, 1, vocab] whose highest is the token
// nearest target [N, 1]: minus the squared distance.
func (b *builder) nearestLogits(target string, vocab int) string {
	ids := make([]float32, vocab)
	for v := range ids {
		ids[v] = float32(v)
	}
	d := b.node("Sub", []string{target, b.floats([]int64{int64(vocab)}, ids...)})
	logits := b.node("Mul", []string{b.node("Mul", []string{d, d}), b.floats(nil, -1)})
	return b.node("Unsqueeze", []string{logits, b.ints([]int64{1}, 1)})
}

// DecoderKVSignature is a decoder-only LLM with a key-value cache, as
// optimum exports one (model.onnx): "input_ids", "attention_mask" [N,
// S] and "position_ids" [N, T] (int64), and per layer l
// "past_key_values.l.key" and ".value" float32 [N, 1, P, 1] in;
// "logits" [N, 1, vocab] and "present.l.key" and ".value" (the past with
// the T new positions appended) out. Layer l's keys are the tokens, its
// values their positions.
//
// It answers the last token plus the sequence's first token (layer 0's
// first key), plus the sum of the positions (layer 1's values) less
// L(L-1)/2, plus the attention mask's sum less L, L the present's length:
// with the cache fed as the export wants, a prompt that starts with token
// 1 counts up from its last token as DecoderSignature does (to vocab-1).
// A cache left empty, positions or a mask of another length move the
// answer.
func DecoderKVSignature(vocab, layers int) []byte {
	b := newBuilder(0)
	ins := []onnxpb.ValueInfo{
		valueInfo("input_ids", onnxpb.Int64, free("N"), free("T")),
		valueInfo("attention_mask", onnxpb.Int64, free("N"), free("S")),
		valueInfo("position_ids", onnxpb.Int64, free("N"), free("T")),
	}
	outs := []onnxpb.ValueInfo{valueInfo("logits", onnxpb.Float, free("N"), fixed(1), fixed(int64(vocab)))}
	var keys, values []string
	for l := range max(layers, 2) {
		p := "past_key_values." + strconv.Itoa(l)
		q := "present." + strconv.Itoa(l)
		ins = append(ins, kvValue(p+".key", "P"), kvValue(p+".value", "P"))
		outs = append(outs, kvValue(q+".key", "L"), kvValue(q+".value", "L"))
		keys = append(keys, b.kvAppend(p+".key", "input_ids"))
		values = append(values, b.kvAppend(p+".value", "position_ids"))
	}
	n := b.kvLen(keys[0])
	first := b.gather(b.node("Flatten", []string{keys[0]}, onnxpb.IntAttr("axis", 1)), 1, 0)
	last := b.gather(b.cast("input_ids", onnxpb.Float), 1, -1)
	sum := func(x string) string {
		x = b.node("Flatten", []string{x}, onnxpb.IntAttr("axis", 1))
		return b.node("ReduceSum", []string{x, b.ints([]int64{1}, 1)}, onnxpb.IntAttr("keepdims", 1))
	}
	half := b.node("Mul", []string{b.node("Mul", []string{n, b.node("Sub", []string{n, b.floats(nil, 1)})}), b.floats(nil, 0.5)})
	posOff := b.node("Sub", []string{sum(values[1]), half})
	maskOff := b.node("Sub", []string{sum(b.cast("attention_mask", onnxpb.Float)), n})
	target := b.node("Add", []string{b.node("Add", []string{last, first}), b.node("Add", []string{posOff, maskOff})})
	b.named(b.nearestLogits(target, vocab), "logits")
	for l := range keys {
		q := "present." + strconv.Itoa(l)
		b.named(keys[l], q+".key")
		b.named(values[l], q+".value")
	}
	return b.graph("decoder_kv_signature", ins, outs)
}

// WhisperEncoderSignature is WhisperSignature's encoder as optimum
// exports Whisper's (encoder_model.onnx): "input_features" float32 [N,
// mels, 3000] in, "last_hidden_state" float32 [N, 3000, 1] out, each
// frame's largest value less that of the pilot frame 5.
func WhisperEncoderSignature(mels int64) []byte {
	b := newBuilder(0)
	x := b.node("Unsqueeze", []string{"input_features", b.ints([]int64{1}, 1)})
	x = b.node("MaxPool", []string{x}, onnxpb.IntsAttr("kernel_shape", mels, 1))
	frames := b.node("Flatten", []string{x}, onnxpb.IntAttr("axis", 1))
	rel := b.node("Sub", []string{frames, b.gather(frames, 1, 5)})
	b.named(b.node("Unsqueeze", []string{rel, b.ints([]int64{1}, 2)}), "last_hidden_state")
	return b.graph("whisper_encoder_signature",
		[]onnxpb.ValueInfo{valueInfo("input_features", onnxpb.Float, free("N"), fixed(mels), fixed(3000))},
		[]onnxpb.ValueInfo{valueInfo("last_hidden_state", onnxpb.Float, free("N"), fixed(3000), fixed(1))})
}

// WhisperDecoderKVSignature is WhisperSignature's decoder as optimum
// exports Whisper's merged decoder (decoder_model_merged.onnx):
// "input_ids" int64 [N, T], "encoder_hidden_states" float32 [N, 3000, 1],
// "past_key_values.0.decoder.key" and ".value", ".encoder.key" and
// ".value" float32 [N, 1, P, 1] and "use_cache_branch" bool [1] in;
// "logits" [N, 1, 44] and the four "present.0.*" out.
//
// The decoder's keys are the tokens; the token's position T is the
// present decoder key's length. The encoder's keys are the encoder's
// frames without the cache branch and nothing with it (optimum's merged
// decoder answers placeholders there too: the first step's stay the
// past); the frames read are the past encoder keys followed by those.
// The logits are WhisperSignature's for the frame 10T+5 of them, so a
// generator that does not keep the first step's encoder keys, or does not
// grow the decoder's, reads the wrong frame.
func WhisperDecoderKVSignature() []byte {
	b := newBuilder(0)
	p, q := "past_key_values.0.", "present.0."
	mu := make([]float32, whisperVocab)
	for v := range WhisperAlphabet {
		mu[v] = -float32(v+1) / 40
	}
	mu[WhisperEOT], mu[WhisperSOT] = -2, 100
	decKey := b.kvAppend(p+"decoder.key", "input_ids")
	decValue := b.kvAppend(p+"decoder.value", "input_ids")
	fresh := b.node("Sub", []string{b.floats(nil, 1), b.cast("use_cache_branch", onnxpb.Float)})
	enc := b.node("Mul", []string{b.node("Unsqueeze", []string{"encoder_hidden_states", b.ints([]int64{1}, 1)}), fresh})
	frames := b.node("Flatten", []string{b.node("Concat", []string{p + "encoder.key", enc}, onnxpb.IntAttr("axis", 2))},
		onnxpb.IntAttr("axis", 1))
	at := b.cast(b.node("Add", []string{b.node("Mul", []string{b.kvLen(decKey), b.floats(nil, 10)}), b.floats(nil, 5)}), onnxpb.Int64)
	v := b.node("Gather", []string{frames, at}, onnxpb.IntAttr("axis", 1))
	d := b.node("Sub", []string{v, b.floats([]int64{whisperVocab}, mu...)})
	logits := b.node("Mul", []string{b.node("Mul", []string{d, d}), b.floats(nil, -1)})
	b.named(b.node("Unsqueeze", []string{logits, b.ints([]int64{1}, 1)}), "logits")
	b.named(decKey, q+"decoder.key")
	b.named(decValue, q+"decoder.value")
	b.named(enc, q+"encoder.key")
	b.named(enc, q+"encoder.value")
	return b.graph("whisper_decoder_kv_signature",
		[]onnxpb.ValueInfo{
			valueInfo("input_ids", onnxpb.Int64, free("N"), free("T")),
			valueInfo("encoder_hidden_states", onnxpb.Float, free("N"), fixed(3000), fixed(1)),
			kvValue(p+"decoder.key", "P"), kvValue(p+"decoder.value", "P"),
			kvValue(p+"encoder.key", "E"), kvValue(p+"encoder.value", "E"),
			valueInfo("use_cache_branch", onnxpb.Bool, fixed(1)),
		},
		[]onnxpb.ValueInfo{
			valueInfo("logits", onnxpb.Float, free("N"), fixed(1), fixed(whisperVocab)),
			kvValue(q+"decoder.key", "L"), kvValue(q+"decoder.value", "L"),
			kvValue(q+"encoder.key", "F"), kvValue(q+"encoder.value", "F"),
		})
}
