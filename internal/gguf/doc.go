// Package gguf writes and reads GGUF version 3 files, the model format
// of llama.cpp and Ollama: a header, typed metadata key-value pairs and
// tensor descriptions, then the tensors' bytes, each aligned. It holds
// what the tests' tiny models need ([File.WriteTo], [Read]): every
// metadata type, and tensors as raw little-endian bytes of a named type
// (F32 and F16 only are given sizes; other types are refused).
//
// Package gguf imports only the standard library; it must never import
// host, loadgen, sdk, plugins or cmd.
package gguf
