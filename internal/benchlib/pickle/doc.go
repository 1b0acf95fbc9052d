// Package pickle reads and writes the Python pickles that some MLPerf
// reference implementations store their preprocessed data sets in
// (KiTS19's case_XXXXX.pkl: [image, label] numpy arrays;
// preprocessed_files.pkl: a dict). [Load] reads the subset of the pickle
// protocols 2 to 5 those files use: Python's dicts, lists, tuples,
// strings, bytes, numbers, booleans and None, and numpy arrays and
// dtypes, never calling anything a pickle names. Byte strings of more
// than 4 KiB (an array's data) are not read but recorded as a [Span] of
// the file, so that a volume's shape is known without reading it. A
// call of anything else is left uncalled, its function and arguments
// read back with [Call], and a persistent id (torch.save's storages) is
// a [Persistent]: internal/benchlib/torchpt reads a torch.save archive's
// tensor from them. [ReadFrame] reads a pandas DataFrame pickle (the LLM
// references' data sets, pandas.read_pickle's input) as its columns of
// cells. [Writer] writes protocol 4 as Python does (arrays, and
// DataFrames with [Writer.Frame]), for the fixtures.
//
// Package pickle imports only the standard library; it must never import
// a benchmark's room (internal/bench/...), host, loadgen, sdk, plugins or
// cmd.
package pickle
