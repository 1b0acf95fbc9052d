// Package earlystop is the MLPerf LoadGen's early stopping arithmetic: the
// smallest number of under-latency queries h such that, with t queries over
// the latency bound, the chance that the true percentile is still met is
// below 1 - confidence. It reproduces the official early_stopping.cc,
// including its cached interpolation of the search bounds, so that the
// same inputs give the same integers.
//
// Package earlystop imports only the standard library.
package earlystop
