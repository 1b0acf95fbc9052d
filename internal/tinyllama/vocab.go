package tinyllama

import "fmt"

// The special token ids, as Llama 2's.
const (
	UnknownID = 0
	BOSID     = 1
	EOSID     = 2
	// FirstByteID is the id of <0x00>; the 256 byte tokens follow.
	FirstByteID = 3
	// FirstPieceID is the id of the first character piece, "▁".
	FirstPieceID = FirstByteID + 256
)

// Token types as GGUF numbers them (llama.cpp's llama_token_type).
const (
	typeNormal  int32 = 1
	typeUnknown int32 = 2
	typeControl int32 = 3
	typeByte    int32 = 6
)

// pieceChars are the characters with a piece of their own, after "▁".
const pieceChars = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.,;:!?'\"-()"

// Vocab is the model's vocabulary: token i is Vocab()[i].
func Vocab() []string {
	v := []string{"<unk>", "<s>", "</s>"}
	for b := range 256 {
		v = append(v, fmt.Sprintf("<0x%02X>", b))
	}
	v = append(v, "▁")
	for _, c := range pieceChars {
		v = append(v, string(c))
	}
	return v
}

// Specials are the special tokens by id.
func Specials() map[int]string {
	return map[int]string{UnknownID: "<unk>", BOSID: "<s>", EOSID: "</s>"}
}

// tokenTypes and scores are the vocabulary's GGUF token types and
// SentencePiece scores (no two pieces merge, so scores only order them).
func tokenTypes(n int) (types []int32, scores []float32) {
	types, scores = make([]int32, n), make([]float32, n)
	for i := range n {
		switch {
		case i == UnknownID:
			types[i] = typeUnknown
		case i < FirstByteID:
			types[i] = typeControl
		case i < FirstPieceID:
			types[i] = typeByte
		default:
			types[i] = typeNormal
			scores[i] = -float32(i - FirstPieceID)
		}
	}
	return types, scores
}
