// Package dataset is mlperf-host's query sample library (QSL) storage: it
// reads data sets in the MLPerf reference preprocessed form (a directory of
// .npy files, one per sample, listed by a label map such as ImageNet's
// val_map.txt), in the stacked form (one .npy per tensor with a lengths or
// shape side file), as a directory per sample (one .npy per tensor) and in
// mlperf-host's own compact single-file form, checks their dtypes and
// shapes, and loads samples by index into an [Arena].
//
// A sample is one or more named tensors ([Schema]); a tensor's shape may
// vary from sample to sample. A sample's bytes are its tensors' raw
// little-endian bytes in C order, back to back, which is what a plugin
// receives, with each tensor's name, dtype and shape.
//
// Package dataset imports only the standard library; it must never import
// host, loadgen, sdk, plugins or cmd.
package dataset
