// Package py is the behaviour of Python, numpy and the Python libraries
// that the official MLPerf accuracy scripts' printed digits depend on:
// float repr, str.split and str.isspace, numpy's pairwise mean and its
// round half to even, stable descending sorts, and the order of a set
// of ints.
//
// Package py imports only the standard library; it must never import a
// benchmark's room (internal/bench/...), host, loadgen, sdk, plugins or
// cmd.
package py
