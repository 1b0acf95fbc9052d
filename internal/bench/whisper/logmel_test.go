package whisper

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/internal/benchlib/wav"
	"github.com/mlperf-host/mlperf-host/internal/dataset"
)

// readGoldenNPY reads a float32 .npy file of testdata/logmel.
func readGoldenNPY(t *testing.T, name string) ([]int, []float32) {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "logmel", name))
	require.NoError(t, err)
	defer f.Close()
	h, err := dataset.ReadNPYHeader(f)
	require.NoError(t, err)
	require.Equal(t, dataset.Float32, h.Spec.DType)
	b := make([]byte, 4*h.Spec.Elements())
	_, err = f.ReadAt(b, h.DataOffset)
	require.NoError(t, err)
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return h.Spec.Shape, v
}

// TestLogMelGolden: the front end matches numpy on the same audio. The
// golden files are tools/accuracyref/logmel_golden.py's output (`make
// verify-logmel` rewrites them and fails if they change): librosa's
// filterbank, and the first 160 of the 3000 frames (the audio's 150 and
// ten of the zero padding) at 80 and 128 mel bins.
func TestLogMelGolden(t *testing.T) {
	t.Parallel()
	shape, filters := readGoldenNPY(t, "filters80.npy")
	require.Equal(t, []int{80, melBins}, shape)
	got := melFilters(WhisperSampleRate, melFFT, 80)
	for b := range 80 {
		for k := range melBins {
			// The same float64 operations rounded to float32: bit for bit.
			assert.Equal(t, filters[b*melBins+k], float32(got[b][k]), "filter %d, bin %d", b, k) //nolint:testifylint // exact by construction
		}
	}

	raw, err := os.ReadFile(filepath.Join("testdata", "logmel", "audio.wav"))
	require.NoError(t, err)
	w, err := wav.Parse(bytes.NewReader(raw), int64(len(raw)), WhisperSampleRate)
	require.NoError(t, err)
	audio := make([]float32, w.Samples)
	wav.PCMToFloat(audio, raw[w.Offset:])
	for _, mels := range []int{80, 128} {
		shape, want := readGoldenNPY(t, fmt.Sprintf("mel%d.npy", mels))
		require.Equal(t, mels, shape[0])
		m, err := NewLogMel(mels)
		require.NoError(t, err)
		feat := make([]float32, mels*MelFrames)
		m.Compute(feat, audio)
		worst := 0.0
		for b := range mels {
			for f := range shape[1] {
				worst = max(worst, math.Abs(float64(feat[b*MelFrames+f]-want[b*shape[1]+f])))
			}
			// Past the golden frames, every frame is the zero padding's.
			assert.InDelta(t, want[b*shape[1]+shape[1]-1], feat[b*MelFrames+MelFrames-1], 1e-6)
		}
		// numpy's FFT and this DFT sum in other orders: equal to a float32
		// step or two (they are equal on this audio).
		assert.Less(t, worst, 2e-6, "%d mel bins: largest difference from numpy", mels)
	}
}

// BenchmarkLogMel: the features of 30 s of audio (a sample's load time
// in the mel form).
func BenchmarkLogMel(b *testing.B) {
	m, err := NewLogMel(128)
	require.NoError(b, err)
	audio := make([]float32, melSamples)
	for i := range audio {
		audio[i] = float32(math.Sin(float64(i) * 0.01))
	}
	dst := make([]float32, 128*MelFrames)
	b.ReportAllocs()
	for b.Loop() {
		m.Compute(dst, audio)
	}
}

// TestFFT: the transform against its definition, for the front end's
// size and sizes with other factors.
func TestFFT(t *testing.T) {
	t.Parallel()
	for _, n := range []int{1, 2, 6, 12, 400, 11, 22} {
		f := newFFT(n)
		x := make([]complex128, n)
		for j := range x {
			x[j] = complex(math.Sin(float64(j*j)), math.Cos(float64(3*j)))
		}
		got := make([]complex128, n)
		f.transform(got, x)
		for k := range n {
			var want complex128
			for j := range n {
				s, c := math.Sincos(-2 * math.Pi * float64(j*k%n) / float64(n))
				want += x[j] * complex(c, s)
			}
			assert.InDelta(t, real(want), real(got[k]), 1e-9, "n %d, bin %d", n, k)
			assert.InDelta(t, imag(want), imag(got[k]), 1e-9, "n %d, bin %d", n, k)
		}
	}
}
