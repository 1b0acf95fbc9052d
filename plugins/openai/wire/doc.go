// Package wire is the openai plugin's HTTP/1.1 client: a keep-alive
// connection that writes a prepared request and reads its response
// without net/http ([Conn]), the parsers it reads with (the response
// head, [ParseHead]; chunked transfer coding, [Chunked]; server-sent
// events, [SSE]) and a JSON reader that finds the few fields of a frame
// the plugin needs without decoding the rest ([Field], [Index],
// [AppendString], [AppendInts]). Over plain TCP on Unix a whole
// exchange runs in one wait on Go's network poller, the request written
// from inside it, so that the reply's first read waits for it instead of
// first finding nothing; on Linux its reads and writes are raw system
// calls, which the scheduler is not told of, as the poller's own are not.
//
// Every parser reads untrusted bytes from a network peer: it never
// panics, bounds what it buffers, and has a native fuzz test. The SSE
// scanner hands out a frame's data as a slice of the bytes it was given
// when the frame lies in one read (the common case), copying only the
// frames split between reads.
//
// Package wire imports only the standard library; it must never import
// host, loadgen, cmd, the SDK or another plugin.
package wire
