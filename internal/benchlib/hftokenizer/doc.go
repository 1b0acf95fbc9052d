// Package hftokenizer writes small byte-level Hugging Face tokenizer.json
// files for the LLM fixtures ([WriteByteLevel]); the scorers decode with
// package sdk/tokenizer.
//
// Package hftokenizer imports only the standard library; it must never
// import a benchmark's room (internal/bench/...), host, loadgen, sdk,
// plugins or cmd.
package hftokenizer
