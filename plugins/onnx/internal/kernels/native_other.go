//go:build !amd64 || purego

package kernels

// nativeKernels lists the micro-kernels this platform offers besides the
// portable one: none.
func nativeKernels() []microKernel { return nil }
