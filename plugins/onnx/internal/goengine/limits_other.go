//go:build !wasm

package goengine

// defaultMaxArenaMB bounds a plan's activations natively.
const defaultMaxArenaMB = 8192
