// Package cost measures the openai plugin's client against a plain Go
// net/http client loop doing the same requests to the canned server
// (package openaitest), which runs in another process so that the CPU
// time this process spends (getrusage) is the client's alone: CPU per
// streamed and per non-streamed request, per SSE frame, the highest
// Offline and Server (Poisson) rates each drives, and the time to first
// token as the plugin reports it against the server's send time of the
// first frame. The command openai-cost (make bench-openai) prints the
// table; BENCHMARKS.md keeps its figures.
package cost
