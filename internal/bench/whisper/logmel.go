package whisper

import (
	"fmt"
	"math"
)

// Whisper's log-mel front end, as its feature extractor (openai-whisper's
// audio.py, Hugging Face's WhisperFeatureExtractor, which the reference's
// vLLM runs) computes the encoder's input from 16 kHz audio: the audio
// padded with zeros or cut to 30 s; a short-time Fourier transform of
// 400-sample frames every 160 samples, each frame under a periodic Hann
// window, the signal reflected by 200 samples at either end (torch.stft's
// center=True); the power spectrum through a Slaney-normalized mel
// filterbank (librosa.filters.mel, whisper's mel_filters.npz); log10 of
// at least 1e-10, raised to at least the maximum less 8, then (x+4)/4. The
// last of the 3001 frames is dropped: 3000 frames of n_mels values.
const (
	melFFT     = 400
	melHop     = 160
	melSamples = 30 * WhisperSampleRate
	// MelFrames is the number of frames of the 30 s the encoder reads.
	MelFrames = melSamples / melHop
	melBins   = melFFT/2 + 1
)

// LogMel computes features: an n_mels×3000 row-major log-mel
// spectrogram of audio (float32 samples at 16 kHz, as soundfile reads
// them), the encoder input of Whisper models of n_mels mel bins (80, or
// 128 for large-v3).
type LogMel struct {
	mels int
	// filters are the filterbank's rows, each its nonzero run of
	// weights from bin start on.
	filters []melFilter
	window  [melFFT]float64
	fft     *fft
}

// melFilter is one mel bin's triangle: weights of the power spectrum's
// bins start, start+1, ...
type melFilter struct {
	start   int
	weights []float64
}

// NewLogMel makes the front end of n mel bins.
func NewLogMel(n int) (*LogMel, error) {
	if n < 1 || n > 256 {
		return nil, fmt.Errorf("log-mel: %d mel bins: want 80 or 128", n)
	}
	m := &LogMel{mels: n, fft: newFFT(melFFT)}
	for _, row := range melFilters(WhisperSampleRate, melFFT, n) {
		lo, hi := 0, len(row)
		for lo < hi && row[lo] == 0 {
			lo++
		}
		for hi > lo && row[hi-1] == 0 {
			hi--
		}
		m.filters = append(m.filters, melFilter{start: lo, weights: row[lo:hi]})
	}
	for i := range melFFT {
		m.window[i] = 0.5 - 0.5*math.Cos(2*math.Pi*float64(i)/melFFT)
	}
	return m, nil
}

// Mels is the number of mel bins.
func (m *LogMel) Mels() int { return m.mels }

// Compute writes audio's features into dst, Mels()×[MelFrames] long.
func (m *LogMel) Compute(dst []float32, audio []float32) {
	if len(audio) > melSamples {
		audio = audio[:melSamples]
	}
	// at is the padded signal: audio, zeros to 30 s, reflected at both ends.
	at := func(i int) float64 {
		switch {
		case i < 0:
			i = -i
		case i >= melSamples:
			i = 2*(melSamples-1) - i
		}
		if i < len(audio) {
			return float64(audio[i])
		}
		return 0
	}
	logs := make([]float64, m.mels*MelFrames)
	frame, spec := make([]complex128, melFFT), make([]complex128, melFFT)
	var power [melBins]float64
	maxLog := math.Inf(-1)
	for t := range MelFrames {
		silent := true
		for i := range frame {
			x := at(t*melHop-melFFT/2+i) * m.window[i]
			frame[i] = complex(x, 0)
			silent = silent && x == 0
		}
		if silent {
			power = [melBins]float64{}
		} else {
			m.fft.transform(spec, frame)
			for k := range power {
				re, im := real(spec[k]), imag(spec[k])
				power[k] = re*re + im*im
			}
		}
		for b, f := range m.filters {
			var v float64
			for k, w := range f.weights {
				v += w * power[f.start+k]
			}
			l := math.Log10(max(v, 1e-10))
			logs[b*MelFrames+t] = l
			maxLog = max(maxLog, l)
		}
	}
	for i, l := range logs {
		dst[i] = float32((max(l, maxLog-8) + 4) / 4)
	}
}

// melFilters is librosa.filters.mel(sr=sr, n_fft=nfft, n_mels=n) with its
// defaults (fmin 0, fmax sr/2, the Slaney mel scale, Slaney area
// normalization), computed in float64 and rounded to float32 as librosa
// returns it.
func melFilters(sr, nfft, n int) [][]float64 {
	bins := nfft/2 + 1
	fft := make([]float64, bins)
	for k := range fft {
		fft[k] = float64(k) * float64(sr) / float64(nfft)
	}
	lo, hi := hzToMel(0), hzToMel(float64(sr)/2)
	// numpy.linspace's points: i·step + lo, the last one hi exactly.
	mel := make([]float64, n+2)
	step := (hi - lo) / float64(n+1)
	for i := range mel {
		mel[i] = melToHz(float64(i)*step + lo)
	}
	mel[n+1] = melToHz(hi)
	w := make([][]float64, n)
	for i := range w {
		w[i] = make([]float64, bins)
		norm := 2 / (mel[i+2] - mel[i])
		for k, f := range fft {
			lower := (f - mel[i]) / (mel[i+1] - mel[i])
			upper := (mel[i+2] - f) / (mel[i+2] - mel[i+1])
			// librosa stores the triangle in float32, then scales it.
			w[i][k] = float64(float32(float64(float32(max(0, min(lower, upper)))) * norm))
		}
	}
	return w
}

// The Slaney mel scale (librosa's htk=False): linear below 1 kHz,
// logarithmic above, its constants rounded as librosa's float64 ones.
var (
	melLinearHz  = 200.0 / 3
	melLogHz     = 1000.0
	melLogMel    = melLogHz / melLinearHz
	melLogStepLn = math.Log(6.4) / 27
)

func hzToMel(f float64) float64 {
	if f < melLogHz {
		return f / melLinearHz
	}
	return melLogMel + math.Log(f/melLogHz)/melLogStepLn
}

func melToHz(m float64) float64 {
	if m < melLogMel {
		return m * melLinearHz
	}
	return melLogHz * math.Exp(melLogStepLn*(m-melLogMel))
}
