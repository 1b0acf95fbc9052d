// Package dlrmv2 is the DLRMv2 benchmark (recommendation on the
// multi-hot Criteo 1TB day 23): the data set as the reference reads it
// ([Reader]: day_23's dense, sparse and label arrays, samples by the
// aggregation trace), the response the official script reads (per
// user-item pair the click probability and the label, two float32, or
// the probability alone), its scorer ([Scorer]: accuracy-dlrm.py's ROC
// AUC, as sklearn's roc_auc_score) and the fixtures the end-to-end tests
// run ([WriteCriteo]).
//
// Package dlrmv2 imports only the standard library and the shared parts
// (dataset, accuracy, benchmarks, internal/benchlib); it must never
// import another benchmark's package, the registry (internal/bench),
// host, loadgen, sdk, plugins or cmd.
package dlrmv2
