package main

import (
	binenc "encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/internal/bench/whisper"
	"github.com/mlperf-host/mlperf-host/internal/exitcode"
)

// TestDatasetInfoLibriSpeech: `dataset info` describes a LibriSpeech data
// set in either form and names the file and sample of a bad WAV.
func TestDatasetInfoLibriSpeech(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.NoError(t, whisper.WriteLibriSpeech(filepath.Join(dir, "ls"), []whisper.LibriSpeechUtterance{
		{Transcript: "ab", Spoken: "ab"}, {Transcript: "too long", Spoken: "a", Duration: 40}, {Transcript: "abc d", Spoken: "abc d"},
	}))
	r := mlperfHost(t, dir, "dataset", "info", "ls")
	require.Equal(t, exitcode.OK, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	assert.Contains(t, r.stdout, "form     LibriSpeech as the Whisper reference prepares it")
	assert.Contains(t, r.stdout, "samples  2\n")
	assert.Regexp(t, `tensor   audio\s+float32\s+\[6400\] to \[11200\]\n`, r.stdout)

	r = mlperfHost(t, dir, "dataset", "info", "--features", "mel80", "ls/dev-all-repack.json")
	require.Equal(t, exitcode.OK, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	assert.Contains(t, r.stdout, "Whisper's log-mel features, float32 [80, 3000]")
	assert.Regexp(t, `tensor   input_features\s+float32\s+\[80 3000\]\n`, r.stdout)

	wav := filepath.Join(dir, "ls", "dev-all-repack", "2-0_0.wav")
	b, err := os.ReadFile(wav)
	require.NoError(t, err)
	binenc.LittleEndian.PutUint32(b[24:], 8000)
	require.NoError(t, os.WriteFile(wav, b, 0o644))
	r = mlperfHost(t, dir, "dataset", "info", "ls")
	assert.Equal(t, exitcode.Dataset, r.code)
	assert.Contains(t, r.stderr, "sample 1 (manifest entry 2)")
	assert.Contains(t, r.stderr, "2-0_0.wav")
	assert.Contains(t, r.stderr, "sample rate 8000 Hz: want 16000")
}
