// Package llmtext holds what the LLM evaluation scripts do alike to an
// accuracy log's responses before they score them: np.frombuffer of a
// response's bytes as token ids ([IDs]), and postprocess_text, each text
// stripped and split into sentences by NLTK's Punkt, one a line
// ([Lines], [Splitter]).
//
// Package llmtext imports only the standard library and the other shared
// parts (internal/benchlib/punkt); it must never import a benchmark's
// room (internal/bench/...), host, loadgen, sdk, plugins or cmd.
package llmtext
