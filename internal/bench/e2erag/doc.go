// Package e2erag holds what a LoadGen-driven SUT of the end-to-end RAG
// benchmarks (e2e-rag-qna, e2e-rag-db) reads and answers that can be
// built and checked here: the FRAMES query set as the reference's QSL
// reads it ([ReadFrames]: frames_dataset.tsv, as pandas reads it; a
// sample is a question, [Reader]) and the response the reference SUT
// completes a query with ([Response], [Tokens]: the final answer's token
// count as int32s, what TEST09 counts); and e2e-rag-db's document set
// ([OpenDocs]: the corpus's *.html files, sorted) and its response
// ([ParseIngested]: a success byte, or the saved database's MD5).
// Retrieval, reranking, the LLM
// stages and the LLM judge that scores the answers are not here
// (docs/benchmarks.md says what is left out and why); the package is in
// no row of the registry until a SUT can run the benchmark.
//
// Package e2erag imports only the standard library and the shared parts
// (dataset, accuracy, benchmarks, internal/benchlib); it must never
// import another benchmark's package, the registry (internal/bench),
// host, loadgen, sdk, plugins or cmd.
package e2erag
