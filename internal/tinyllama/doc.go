// Package tinyllama writes a tiny llama-architecture model with random
// weights that llama.cpp and Ollama load and serve: a GGUF v3 file
// (package gguf; F32, embedding 64, two blocks by default), the matching
// Hugging Face tokenizer.json (package hftokenizer; package sdk/tokenizer
// reads it) and an Ollama Modelfile. The end-to-end tests run a real
// OpenAI-compatible server on it.
//
// The tokenizer is SentencePiece with byte fallback over single
// characters and no merges, and without a dummy prefix, so text decodes
// and encodes one token a character, the same in Ollama and in
// sdk/tokenizer. The output rows of the unknown, control and byte tokens
// are zero: greedy decoding never ends a completion early (EOS) and only
// emits characters, so every completion is exactly max_tokens tokens and
// its text encodes back to the tokens generated. Everything is a pure
// function of the [Config], seed included.
//
// Package tinyllama imports only the standard library, internal/gguf
// and internal/benchlib/hftokenizer; it must never import host, loadgen,
// sdk, plugins or cmd.
package tinyllama
