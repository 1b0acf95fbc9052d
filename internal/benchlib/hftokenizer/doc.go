// Package hftokenizer decodes an LLM's generated token ids into text from
// the model's Hugging Face tokenizer.json, as the MLPerf LLM evaluation
// scripts' tokenizer.batch_decode(ids, skip_special_tokens=True) does
// ([Tokenizer]), and writes small byte-level tokenizer.json files for the
// LLM fixtures ([WriteByteLevel]). It decodes only: the tokenizers that
// encode prompts are the SUT's.
//
// Package hftokenizer imports only the standard library; it must never
// import a benchmark's room (internal/bench/...), host, loadgen, sdk,
// plugins or cmd.
package hftokenizer
