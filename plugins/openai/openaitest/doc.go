// Package openaitest is a canned OpenAI-compatible server for the openai
// plugin's tests and benchmarks: it answers /v1/completions,
// /v1/chat/completions and SGLang's /generate, streamed (SSE) or not,
// with a deterministic completion of each prompt, and misbehaves on
// demand the ways a real server does only by accident: frames split at
// every byte, usage only in the last frame, role-only frames, errors in
// the stream, stalls, resets, slow starts, 5xx, a death mid-run.
//
// A completion of n tokens counts up from a seed (the prompt's last
// token id, or the prompt text's length): token k is
// 3 + (seed+1+k) mod (len(Pieces)-3), its text Pieces[id]; the first
// three ids are left for special tokens. [Completion] computes what the
// server sends, for tests to compare with.
//
// Package openaitest imports only the standard library (it must never
// import host, loadgen, cmd, the SDK, testify or another plugin).
package openaitest
