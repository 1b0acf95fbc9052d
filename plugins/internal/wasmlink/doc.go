// Package wasmlink links a library of WebAssembly functions into a WASM
// plugin after the plugin's compiler has built it: the plugin declares the
// library's functions as imports from one module name (in Go,
// //go:wasmimport <module> <name>), and [Link] replaces each such import
// with the library's function of that name, copied into the plugin's own
// module. The result imports nothing from that module.
//
// It exists so that a Go guest can call vector kernels written in C for
// wasm32 with SIMD128 (which Go cannot emit) at the cost of a WASM call,
// with no host function in between: the kernels run inside the same
// sandbox, on the guest's own memory, under the same memory cap and hang
// guard. See RATIONALE.md, "Why link the SIMD kernels into the guest?".
//
// A library must be self-contained code over the memory it imports: its
// only import is a memory, it has no data segments, no start function and
// no tables in use, and its code reads no globals (clang's shadow stack,
// __stack_pointer, would point into the plugin's memory). [Link] checks
// all of this and refuses anything else.
//
// Renumbering: imports come first in a module's function index space, so
// removing k imports moves every defined function of the plugin down by
// k; the library's functions go after them. Every function index in the
// plugin (calls, ref.func, exports, the start function, element segments,
// the name section) is rewritten; DWARF sections, whose code offsets no
// longer hold, are dropped.
//
// Package wasmlink imports only the standard library; it must not import
// anything of mlperf-host.
package wasmlink
