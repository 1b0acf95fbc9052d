package whisper

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/mlperf-host/mlperf-host/internal/benchlib/wav"
)

// LibriSpeechUtterance is one utterance of a LibriSpeech fixture.
type LibriSpeechUtterance struct {
	// Transcript is the manifest's transcript: text, or any other JSON
	// value (a transcript the reference drops).
	Transcript any
	// Spoken is what the audio says to the Whisper signature model
	// ([WhisperToneAudio]): characters of the alphabet.
	Spoken string
	// Duration is the manifest's original_duration; 0 for the audio's.
	Duration float64
}

// The tone code of the Whisper fixtures, which the onnx plugin zoo's
// WhisperSignature reads back from the log-mel features: 0.1 s segments
// of a 1 kHz tone (an FFT bin's centre at n_fft 400, so that a frame's
// power spectrum does not depend on the tone's phase), the first at full
// amplitude (the pilot), then one per character, character c of the
// alphabet (WhisperLabels) c+1 dB below the pilot, then silence.
const (
	whisperToneSegment = WhisperSampleRate / 10
	whisperToneHz      = 1000
	whisperPilot       = 30000.0
)

// WhisperToneAudio is the audio of text in the fixtures' tone code.
func WhisperToneAudio(text string) ([]int16, error) {
	out := make([]int16, (len(text)+2)*whisperToneSegment) // pilot, text, a silent segment
	for seg := range len(text) + 1 {
		amp := whisperPilot
		if seg > 0 {
			c := strings.IndexByte(WhisperLabels, text[seg-1])
			if c < 0 {
				return nil, fmt.Errorf("whisper fixture: %q is not in the alphabet", text[seg-1])
			}
			amp *= math.Pow(10, -float64(c+1)/20)
		}
		for i := range whisperToneSegment {
			n := seg*whisperToneSegment + i
			out[n] = int16(math.Round(amp * math.Sin(2*math.Pi*whisperToneHz*float64(n)/WhisperSampleRate)))
		}
	}
	return out, nil
}

// WriteLibriSpeech writes a LibriSpeech data set in the Whisper
// reference's form: dir/dev-all-repack.json and its WAV files under
// dir/dev-all-repack/, named by relative paths.
func WriteLibriSpeech(dir string, utts []LibriSpeechUtterance) error {
	if err := os.MkdirAll(filepath.Join(dir, "dev-all-repack"), 0o755); err != nil {
		return err
	}
	type file struct {
		Channels   int     `json:"channels"`
		SampleRate float64 `json:"sample_rate"`
		Bitdepth   int     `json:"bitdepth"`
		Duration   float64 `json:"duration"`
		NumSamples int     `json:"num_samples"`
		Encoding   string  `json:"encoding"`
		Fname      string  `json:"fname"`
		Speed      int     `json:"speed"`
	}
	type entry struct {
		Transcript       any     `json:"transcript"`
		Files            []file  `json:"files"`
		OriginalDuration float64 `json:"original_duration"`
		OriginalSamples  int     `json:"original_num_samples"`
	}
	entries := make([]entry, len(utts))
	for i, u := range utts {
		audio, err := WhisperToneAudio(u.Spoken)
		if err != nil {
			return err
		}
		name := filepath.ToSlash(filepath.Join("dev-all-repack", fmt.Sprintf("%d-0_0.wav", i)))
		if err := os.WriteFile(filepath.Join(dir, name), wav.Write(audio, WhisperSampleRate), 0o644); err != nil {
			return err
		}
		d := float64(len(audio)) / WhisperSampleRate
		entries[i] = entry{Transcript: u.Transcript, OriginalDuration: d, OriginalSamples: len(audio),
			Files: []file{{Channels: 1, SampleRate: WhisperSampleRate, Bitdepth: 16, Duration: d, NumSamples: len(audio),
				Encoding: "Signed Integer PCM", Fname: name, Speed: 1}}}
		if u.Duration != 0 {
			entries[i].OriginalDuration = u.Duration
		}
	}
	b, err := json.MarshalIndent(entries, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, LibriSpeechManifest), b, 0o644)
}
