// Package punkt splits text into sentences as NLTK's sent_tokenize does
// with its Punkt model (Kiss and Strunk 2006, "Unsupervised Multilingual
// Sentence Boundary Detection"): the tokenization phase only, from
// trained parameters (abbreviations, collocations, frequent sentence
// starters and the orthographic contexts of word types). Training is not
// implemented.
//
// [English] returns English parameters trained on the Wall Street
// Journal, read from the github.com/neurosnap/sentences module (MIT
// licence); [ReadTab] reads NLTK's own punkt_tab/<language> directory.
// The MLPerf LLM evaluation scripts split summaries this way before
// ROUGE-Lsum.
//
// Package punkt imports only the standard library and that module's data
// package; it must never import anything of ours.
package punkt
