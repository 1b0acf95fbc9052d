// Package backend is the openai plugin's sdk.Backend: it sends each
// sample's prompt to one of several OpenAI-compatible servers (the one
// with the fewest requests outstanding) as /v1/completions,
// /v1/chat/completions or SGLang's /generate, streamed over SSE or not,
// and reports the first token at the first frame that carries content
// and every output token id at the end: the server's ids when it sends
// them, else the model's tokenizer's (docs/openai.md).
//
// An endpoint that fails (refused, an HTTP error, a malformed or
// stalled stream, an error frame) fails the sample with the endpoint
// named and the cause; nothing is retried.
//
// Package backend imports only the SDK, the ABI and the plugin's own
// packages; it must never import host, loadgen, cmd or another plugin.
package backend
