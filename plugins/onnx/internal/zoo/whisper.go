package zoo

import "github.com/mlperf-host/mlperf-host/plugins/onnx/internal/onnxpb"

// The Whisper signature model's vocabulary: the 42 characters of the
// Whisper benchmark's alphabet (" abcdefghijklmnopqrstuvwxyz'0123456789$%+-")
// as tokens 0..41, then end of text and start of transcript.
const (
	WhisperAlphabet = 42
	WhisperEOT      = 42
	WhisperSOT      = 43
	whisperVocab    = 44
)

// WhisperSignature is an encoder-decoder with Whisper's signature at a
// small vocabulary: "input_features" float32 [N, mels, 3000] (the
// log-mel spectrogram) and "decoder_input_ids" int64 [N, T] (the
// start-of-transcript token, then the tokens so far) in, the next
// token's "logits" float32 [N, 1, 44] out.
//
// It reads the fixtures' tone code (internal/bench/whisper.WhisperToneAudio): the
// features' largest value of each frame, less that of frame 5 (the
// pilot tone's 0.1 s), at frame 10T+5 (the middle of the 0.1 s after the
// T-th) is -(c+1)/40 for character c, -2 (the spectrogram's floor) for
// silence. Token v's logit is minus the squared distance to its value:
// -(v+1)/40 for a character, -2 for end of text, far away for start of
// transcript. It reads up to 298 characters: the 300th token's frame is
// past the features' 3000.
func WhisperSignature(mels int64) []byte {
	b := newBuilder(0)
	mu := make([]float32, whisperVocab)
	for v := range WhisperAlphabet {
		mu[v] = -float32(v+1) / 40
	}
	mu[WhisperEOT], mu[WhisperSOT] = -2, 100
	// Each frame's largest value: a max pool over the mel bins.
	x := b.node("Unsqueeze", []string{"input_features", b.ints([]int64{1}, 1)})
	x = b.node("MaxPool", []string{x}, onnxpb.IntsAttr("kernel_shape", mels, 1))
	frames := b.node("Flatten", []string{x}, onnxpb.IntAttr("axis", 1))
	pilot := b.gather(frames, 1, 5)
	t := b.gather(b.node("Shape", []string{"decoder_input_ids"}), 0, 1)
	at := b.node("Add", []string{b.node("Mul", []string{t, b.ints(nil, 10)}), b.ints(nil, 5)})
	v := b.node("Gather", []string{frames, at}, onnxpb.IntAttr("axis", 1))
	d := b.node("Sub", []string{b.node("Sub", []string{v, pilot}), b.floats([]int64{whisperVocab}, mu...)})
	logits := b.node("Mul", []string{b.node("Mul", []string{d, d}), b.floats(nil, -1)})
	b.named(b.node("Unsqueeze", []string{logits, b.ints([]int64{1}, 1)}), "logits")
	return b.graph("whisper_signature",
		[]onnxpb.ValueInfo{
			valueInfo("input_features", onnxpb.Float, free("N"), fixed(mels), fixed(3000)),
			valueInfo("decoder_input_ids", onnxpb.Int64, free("N"), free("T")),
		},
		[]onnxpb.ValueInfo{valueInfo("logits", onnxpb.Float, free("N"), fixed(1), fixed(whisperVocab))})
}
