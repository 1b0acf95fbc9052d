// Package imaging decodes and resizes images as the MLPerf references'
// preprocessing does with OpenCV: [DecodeRGB] decodes a JPEG (or PNG) to
// interleaved 8-bit RGB with libjpeg's chroma upsampling and colour
// tables, [ResizeArea] is OpenCV's cv2.resize with INTER_AREA and
// [ResizeLinear] with INTER_LINEAR.
//
// Package imaging imports only the standard library; it must never
// import a benchmark's room (internal/bench/...), host, loadgen, sdk,
// plugins or cmd.
package imaging
