// Package tokenizer encodes text into a model's token ids and decodes ids
// back into text as Hugging Face's tokenizers library does, from the
// model's tokenizer.json (and tokenizer_config.json beside it): byte-level
// BPE with its pre-tokenizer patterns (Llama 3.x, DeepSeek-V3/R1,
// gpt-oss, Qwen3) and SentencePiece-style BPE with byte fallback
// (Llama 2), added and special tokens, normalizers, post-processors and
// decoders, token for token equal to the library.
//
// A [Tokenizer] is built once ([Open], [Parse]) and is then safe for use
// by any number of goroutines; it holds no global state. An LLM plugin
// uses it to count and report the token ids of a server's text answer,
// and a scorer to turn the token ids of an accuracy log back into text.
//
// What the library does that this package does not (truncation, padding,
// pairs of sequences, offsets, models other than BPE, the rarer
// normalizers and pre-tokenizers) is an error naming the field when a
// file asks for it, never a silent difference.
//
// Package tokenizer uses the standard library only and builds for
// GOOS=wasip1; it must never import host, loadgen, cmd or any plugin.
package tokenizer
