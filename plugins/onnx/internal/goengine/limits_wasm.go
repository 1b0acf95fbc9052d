//go:build wasm

package goengine

// defaultMaxArenaMB bounds a plan's activations in a WASM guest, whose
// linear memory cannot exceed 4 GiB.
const defaultMaxArenaMB = 1024
