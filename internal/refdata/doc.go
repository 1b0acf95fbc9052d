// Package refdata opens the data sets of the MLPerf benchmarks in the
// forms their reference implementations (mlcommons/inference) prepare:
// KiTS19's preprocessed pickles (3D-UNet), OpenImages' preprocessed
// images with their annotations (RetinaNet), the multi-hot Criteo day 23
// with its aggregation trace (DLRMv2), SQuAD v1.1 with its vocabulary
// (BERT, cut into features by package accuracy's tokenizer), LLM prompts of token ids in the
// reference's JSON, LibriSpeech's manifest and 16 kHz WAV files (Whisper,
// as audio or as Whisper's log-mel features, logmel.go), and hands every other path to package dataset. Each
// is a [dataset.Dataset] of named tensors, whose shapes may vary from
// sample to sample; a malformed file is an error naming it and the
// sample.
//
// It also writes small data sets in those forms (fixtures.go), which the
// end-to-end tests run and `mlperf-host dataset` can describe, and
// prepares the ResNet-50 form from the raw ImageNet JPEGs as the
// reference preprocesses them ([PrepareImageNet], with OpenCV's INTER_AREA
// resize in resize_area.go).
//
// Package refdata imports only the standard library, packages dataset
// and accuracy (the SQuAD features its scorer cuts) and the shared parts
// (internal/benchlib: pickle, WAV, image decoding);
// it must never import host, loadgen, sdk, plugins or cmd.
package refdata
