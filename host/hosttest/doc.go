// Package hosttest provides a fake host.Backend for tests of code that
// drives plugins (the LoadGen bridge, the CLI): no process, no WASM, fully
// deterministic. It completes every sample synchronously inside Issue with
// output the test chooses, records every call, and can be made to fail as a
// plugin would.
//
// Package hosttest imports host and abi only.
package hosttest
