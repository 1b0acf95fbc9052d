// Package cost measures the openai plugin's client against a plain Go
// net/http client loop doing the same requests to the canned server
// (package openaitest), which runs in another process so that the CPU
// time this process spends (getrusage) is the client's alone: CPU per
// streamed and per non-streamed request, per SSE frame, the highest
// Offline and Server (Poisson) rates each drives, and the time to first
// token as the plugin reports it against the server's send time of the
// first frame, one request at a time and at each Server rate. On Linux the requests sent one at a time are also sent by
// a floor client, the least any client can do for the same exchange on
// the machine (blocking raw reads and writes, nothing parsed but the
// framing; its first token stamped at the first read that brings body
// bytes), so that a figure reads against what the machine allows. The
// command openai-cost (make bench-openai) prints the table;
// BENCHMARKS.md keeps its figures.
package cost
