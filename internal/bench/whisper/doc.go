// Package whisper is the Whisper benchmark (speech to text on
// LibriSpeech dev-clean and dev-other): the data set as the reference
// prepares it ([Reader]: the manifest and its 16 kHz WAV files, read
// with package wav, each sample the audio or Whisper's log-mel encoder
// input, logmel.go), the response the official script reads (the
// transcript as indices into its 42-character alphabet), its scorer
// ([Scorer]: accuracy_eval.py's word error rate after openai-whisper's
// English normalizer, normalizer.go and numbers.go) and the fixtures the
// end-to-end tests run ([WriteLibriSpeech], whose audio says its text in
// tones, [WhisperToneAudio]).
//
// Package whisper imports only the standard library and the shared
// parts (dataset, accuracy, benchmarks, internal/benchlib); it must never
// import another benchmark's package, the registry (internal/bench),
// host, loadgen, sdk, plugins or cmd.
package whisper
