package whisper

import (
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/internal/dataset"
	"github.com/mlperf-host/mlperf-host/internal/dataset/datasettest"
)

// librispeechFixture: two samples around an utterance over 30 s and one
// whose transcript is not a string, which are not samples.
func librispeechFixture(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, WriteLibriSpeech(dir, []LibriSpeechUtterance{
		{Transcript: "hello world", Spoken: "hello world"},
		{Transcript: "too long", Spoken: "x", Duration: 30.5},
		{Transcript: 7, Spoken: "y"},
		{Transcript: "It's 5%", Spoken: "it's 5%"},
	}))
	return dir
}

func TestLibriSpeechAudio(t *testing.T) {
	t.Parallel()
	dir := librispeechFixture(t)
	for _, path := range []string{dir, filepath.Join(dir, LibriSpeechManifest)} {
		d, err := Reader.Open(path, dataset.Options{})
		require.NoError(t, err)
		assert.Equal(t, 2, d.Len())
		assert.Equal(t, filepath.Join(dir, LibriSpeechManifest), dataset.Truth(d))
		assert.Contains(t, dataset.Form(d), "LibriSpeech")
		assert.Equal(t, dataset.Schema{{Name: AudioTensor, DType: dataset.Float32, Shape: []int{dataset.Varies}}}, d.Schema())
		samples := datasettest.ReadAll(t, d)
		for i, text := range []string{"hello world", "it's 5%"} {
			want, err := WhisperToneAudio(text)
			require.NoError(t, err)
			require.Len(t, samples[i], 4*len(want))
			for k, s := range want {
				require.Equal(t, float32(s)/32768, math.Float32frombits(binary.LittleEndian.Uint32(samples[i][4*k:]))) //nolint:testifylint // exact: a power-of-two scale
			}
		}
		require.NoError(t, d.Close())
	}
}

// TestLibriSpeechMel: the log-mel form, whose frames hold the tone code
// the zoo's WhisperSignature reads: character c's frame c+1 dB (1/40 in
// the features' units) below the pilot's, silence 2 below (the floor).
func TestLibriSpeechMel(t *testing.T) {
	t.Parallel()
	d, err := Reader.Open(librispeechFixture(t), dataset.Options{Features: FeaturesMel80})
	require.NoError(t, err)
	defer d.Close()
	assert.Equal(t, dataset.Schema{{Name: MelTensor, DType: dataset.Float32, Shape: []int{80, MelFrames}}}, d.Schema())
	samples := datasettest.ReadAll(t, d)
	frameMax := func(sample []byte, f int) float64 {
		m := math.Inf(-1)
		for b := range 80 {
			m = max(m, float64(math.Float32frombits(binary.LittleEndian.Uint32(sample[4*(b*MelFrames+f):]))))
		}
		return m
	}
	text := "hello world"
	pilot := frameMax(samples[0], 5)
	for p, ch := range text + "\x00" {
		want := -2.0
		if ch != 0 {
			want = -float64(strings.IndexRune(WhisperLabels, ch)+1) / 40
		}
		assert.InDelta(t, want, frameMax(samples[0], 10*(p+1)+5)-pilot, 2e-3, "character %d", p)
	}
}

func TestLibriSpeechErrors(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name   string
		change func(t *testing.T, dir string)
		opts   dataset.Options
		is     error
		want   []string
	}{
		{name: "missing wav", is: dataset.ErrNotFound,
			change: func(t *testing.T, dir string) {
				require.NoError(t, os.Remove(filepath.Join(dir, "dev-all-repack", "3-0_0.wav")))
			},
			want: []string{"sample 1 (manifest entry 3)", "3-0_0.wav"}},
		{name: "stereo wav", is: dataset.ErrCorrupt,
			change: func(t *testing.T, dir string) {
				p := filepath.Join(dir, "dev-all-repack", "0-0_0.wav")
				b, err := os.ReadFile(p)
				require.NoError(t, err)
				binary.LittleEndian.PutUint16(b[22:], 2)
				require.NoError(t, os.WriteFile(p, b, 0o644))
			},
			want: []string{"sample 0 (manifest entry 0)", "0-0_0.wav", "2 channels: want mono"}},
		{name: "truncated wav", is: dataset.ErrCorrupt,
			change: func(t *testing.T, dir string) {
				p := filepath.Join(dir, "dev-all-repack", "3-0_0.wav")
				b, err := os.ReadFile(p)
				require.NoError(t, err)
				require.NoError(t, os.WriteFile(p, b[:100], 0o644))
			},
			want: []string{"sample 1 (manifest entry 3)", "3-0_0.wav", "truncated"}},
		{name: "no file of speed 1", is: dataset.ErrCorrupt,
			change: func(t *testing.T, dir string) {
				p := filepath.Join(dir, LibriSpeechManifest)
				b, err := os.ReadFile(p)
				require.NoError(t, err)
				require.NoError(t, os.WriteFile(p, []byte(strings.Replace(string(b), `"speed": 1`, `"speed": 1.1`, 1)), 0o644))
			},
			want: []string{"sample 0 (manifest entry 0)", "no file of speed 1"}},
		{name: "features", opts: dataset.Options{Features: "mel64"}, want: []string{`features "mel64": want audio, mel128 or mel80`}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := librispeechFixture(t)
			if tt.change != nil {
				tt.change(t, dir)
			}
			_, err := Reader.Open(dir, tt.opts)
			require.Error(t, err)
			if tt.is != nil {
				assert.ErrorIs(t, err, tt.is)
			}
			for _, w := range tt.want {
				assert.ErrorContains(t, err, w)
			}
		})
	}
}

// TestIsLibriSpeech: a prompts file is not a LibriSpeech manifest.
func TestIsLibriSpeech(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	prompts := filepath.Join(dir, "prompts.json")
	require.NoError(t, os.WriteFile(prompts, []byte(`[{"input": "prompt 0", "tok_input": [1, 2], "output": "a"}]`), 0o644))
	assert.False(t, IsLibriSpeech(prompts))
	assert.False(t, IsLibriSpeech(dir))
	_, err := WhisperToneAudio("Capital")
	assert.ErrorContains(t, err, `'C' is not in the alphabet`)
}
