// Package rouge is the ROUGE scores the MLPerf LLM evaluation scripts
// compute through Hugging Face's evaluate "rouge" metric, which is
// Google's rouge_score (rouge_scorer.RougeScorer with use_stemmer=True,
// one reference per prediction, use_aggregator=False): per pair the
// F-measure of unigrams (rouge1), bigrams (rouge2) and the longest common
// subsequence (rougeL) of the texts' tokens, and the summary-level LCS
// over their sentences (rougeLsum), with NLTK's Porter stemmer
// (porter.go). The mean over the pairs is the caller's (py.NumpyMean).
//
// Package rouge imports only the standard library and package punkt
// (Python's lower case); it must never import a benchmark's room
// (internal/bench/...), host, loadgen, sdk, plugins or cmd.
package rouge
