// Package dataset is mlperf-host's query sample library (QSL) storage: it
// reads data sets in the MLPerf reference preprocessed form (a directory of
// .npy files, one per sample, listed by a label map such as ImageNet's
// val_map.txt) and in mlperf-host's own compact single-file form, checks
// their dtype and shape, and loads samples by index into an [Arena].
//
// Every sample of a data set has the same dtype and shape, hence the same
// size in bytes; a sample is its tensor's raw little-endian bytes in C
// order, which is what a plugin receives.
//
// Package dataset imports only the standard library; it must never import
// host, loadgen, sdk, plugins or cmd.
package dataset
