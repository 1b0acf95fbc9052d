// Package wav reads and writes WAV files as the MLPerf references' audio
// holds them (soundfile's): RIFF WAVE, 16-bit signed integer PCM, one
// channel, at one rate the caller names. The parser is strict ([Parse]):
// it reads the header and says where the samples are, so that a data set
// checks every file when it opens and reads the samples when they load.
//
// Package wav imports only the standard library; it must never import a
// benchmark's room (internal/bench/...), host, loadgen, sdk, plugins or
// cmd.
package wav
