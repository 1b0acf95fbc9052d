// Package native is how the plugins of mlperf-host reach C libraries
// without cgo: it opens shared libraries at run time and binds their
// functions with purego, reads and writes C strings, views C memory as
// byte slices, and maps page-aligned memory outside the Go heap that a C
// runtime may keep pointers to.
//
// It imports only the standard library and purego; it must not import
// anything of mlperf-host (not even sdk or abi), so that any plugin may
// use it.
package native
