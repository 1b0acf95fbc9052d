// Package archtest holds the test that enforces the package boundaries of
// ARCHITECTURE.md: which of our packages, and which third-party modules,
// each layer may import. It has no non-test code.
package archtest
