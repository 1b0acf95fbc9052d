// Package archtest holds the tests that enforce the package boundaries of
// ARCHITECTURE.md: which of our packages, and which third-party modules,
// each layer and its tests may import, and that a WASM guest's packages
// link no gRPC. It has no non-test code.
package archtest
