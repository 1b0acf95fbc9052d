//go:build darwin

package ort

// DefaultLibrary is the library dlopen looks for when no path is given:
// the install name of ONNX Runtime's macOS builds, found through the
// loader's search path (DYLD_LIBRARY_PATH).
const DefaultLibrary = "libonnxruntime.1.dylib"
