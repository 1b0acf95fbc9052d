// Package accuracy reads MLPerf accuracy logs (mlperf_log_accuracy.json)
// and scores them as the official accuracy scripts of mlcommons/inference
// do, each scorer printing its script's result line (the accuracy.txt
// line the submission checker reads), one file per metric: top-1
// (accuracy-imagenet.py), COCO mAP (accuracy-openimages.py), SQuAD exact
// match and F1 with BERT's tokenizer (accuracy-squad.py), KiTS19 mean
// DICE (accuracy_kits.py), ROC AUC (accuracy-dlrm.py), ROUGE (the LLM
// evaluation scripts, with ROUGE-Lsum over sentences split by NLTK's
// Punkt algorithm) and the word error rate after
// openai-whisper's English normalizer (accuracy_eval.py). [Scorers] lists
// them; tools/accuracyref/verify.sh runs the official scripts against
// them.
//
// Package accuracy imports only the standard library, golang.org/x/text,
// benchmarks and the shared parts (internal/benchlib: ROUGE, Punkt, COCO
// evaluation, the LLM tokenizer's decoder); it must never import host,
// loadgen, sdk, plugins or cmd.
package accuracy
