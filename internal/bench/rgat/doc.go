// Package rgat is the R-GAT benchmark (rgat: node classification on
// IGBH, the Illinois Graph Benchmark's heterogeneous graph): the data
// set as the reference reads it ([Reader]: DIR/SIZE/processed/ with its
// node features, paper labels, edge lists per relation and
// split_seeds.py's val_idx.pt), the response the official script reads
// ([Response]: the predicted class, one integer), its scorer ([Scorer]:
// accuracy_igbh.py's accuracy) and the fixtures the tests run
// ([NewFixture], [WriteIGBH]).
//
// One LoadGen sample is one validation paper, sample i the i-th entry of
// val_idx.pt, as the reference's QSL has it (get_samples returns
// val_idx[ids]). The reference's SUT then samples the paper's
// neighbourhood (PyGSampler, fanouts 15, 10 and 5 over the eleven
// relations of augment_edges' graph) and feeds the model the sampled
// blocks and the features of their nodes. A sample is, by form
// (dataset.Options.Features): "seed", the default, the paper's node id
// (int64 [1], what the reference's SUT receives; a SUT holds the graph
// itself); "neighbourhood", the same id with its sampled neighbourhood
// (node types, node ids, features, edges: [Graph.Sample]), what the
// reference's model receives, for plugins that run the model alone.
//
// Package rgat imports only the standard library and the shared parts
// (dataset, accuracy, benchmarks, internal/benchlib); it must never
// import another benchmark's package, the registry (internal/bench),
// host, loadgen, sdk, plugins or cmd.
package rgat
