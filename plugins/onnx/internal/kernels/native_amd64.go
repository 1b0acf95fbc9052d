//go:build amd64 && !purego

package kernels

// nativeKernels lists the micro-kernels this CPU offers besides the
// portable one, best first.
func nativeKernels() []microKernel { return nil }
