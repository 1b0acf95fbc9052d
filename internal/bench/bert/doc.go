// Package bert is the BERT benchmark (question answering on SQuAD v1.1):
// the data set as the reference reads it ([Reader]: dev-v1.1.json and
// the model's vocab.txt, cut into 384-token features as the scorer cuts
// them, tokenizer.go being BERT's basic and WordPiece tokenizer), the
// response the official script reads (each feature's start and end
// logits, float32 or float16), its scorer ([Scorer]: accuracy-squad.py's
// exact match and F1) and the fixtures the end-to-end tests run
// ([WriteSQuAD]).
//
// Package bert imports only the standard library, golang.org/x/text and
// the shared parts (dataset, accuracy, benchmarks, internal/benchlib); it
// must never import another benchmark's package, the registry
// (internal/bench), host, loadgen, sdk, plugins or cmd.
package bert
