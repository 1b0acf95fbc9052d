// Package hftokenizer writes small Hugging Face tokenizer.json
// files for the LLM fixtures ([WriteByteLevel], and [WriteSentencePiece]
// for the tiny llama model Ollama serves in the tests); the scorers decode with
// package sdk/tokenizer.
//
// Package hftokenizer imports only the standard library; it must never
// import a benchmark's room (internal/bench/...), host, loadgen, sdk,
// plugins or cmd.
package hftokenizer
