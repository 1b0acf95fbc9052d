//go:build linux

package ort

// DefaultLibrary is the library dlopen looks for when no path is given:
// the name ONNX Runtime's Linux builds carry (SONAME), found through the
// loader's search path (LD_LIBRARY_PATH, the ld.so cache).
const DefaultLibrary = "libonnxruntime.so.1"
