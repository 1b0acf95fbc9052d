// Package wasmguard rewrites a WASM module so that a guest stuck in a loop
// can be stopped, and so that a long-running guest lets the Go runtime
// preempt it.
//
// wazero runs compiled guest code that Go's scheduler cannot preempt.
// Without wazero's WithCloseOnContextDone (which measured 2.4-50x slower on
// loops) a guest looping forever cannot be interrupted, and the next garbage
// collection's stop-the-world waits for it forever: the whole process
// freezes. [Instrument] inserts, at the head of every loop, a countdown of a
// new local of the function (set to a budget when the function starts);
// when it reaches zero the loop calls a new host import (a Go function: a
// preemption point, where the host may also stop the guest by panicking)
// and resets the budget.
//
// The call sits outside the loop: a loop without parameters is wrapped in
// blocks so that the countdown leaves it to the call and the call re-enters
// it (the nested form; branch depths in its body are remapped past the new
// labels), because a call inside a loop, though it rarely runs, makes
// wazero keep the loop's values in memory around it. Only loops with
// parameters, and functions using exception handling or br_on_null, keep
// the call inside the loop (the inline form). The cost is a few
// instructions and a branch per loop iteration, and one host call per
// budget iterations: 1.01-1.06x in CPU time on a naive matrix product
// (tiny loop bodies), where the inline form cost 1.2-1.3x and wazero's
// WithCloseOnContextDone 15-17x (BenchmarkGuard).
//
// The rewrite keeps the module's meaning: the new import is appended last,
// so function indices of defined functions move up by one and every
// reference to them (calls, ref.func, exports, the start function, element
// segments, the name section) is renumbered. DWARF sections, whose code
// offsets the rewrite invalidates, are dropped.
//
// Package wasmguard imports only the standard library.
package wasmguard
