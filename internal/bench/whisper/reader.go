package whisper

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"

	"github.com/mlperf-host/mlperf-host/internal/accuracy"
	"github.com/mlperf-host/mlperf-host/internal/benchlib/wav"
	"github.com/mlperf-host/mlperf-host/internal/dataset"
)

// LibriSpeech as the Whisper reference prepares it
// (speech2text/download_dataset.sh): the manifest dev-all-repack.json
// and its 16 kHz mono 16-bit WAV files, each utterance's first file of
// speed 1, a relative fname taken under the manifest's directory (the
// reference's --dataset_dir). The samples are the utterances the
// reference's Manifest keeps, which are the ones its accuracy_eval.py
// scores ([ReadWhisperUtterances]: none over 30 s, none whose
// transcript is not a string), in manifest order.
//
// A sample is one tensor, by the data set's features option: the audio
// as float32 samples in [-1, 1) as soundfile reads them ("audio", float32
// [samples], what the reference QSL hands its SUT), or Whisper's log-mel
// encoder input ("input_features", float32 [n_mels, 3000], [LogMel]) of
// 128 mel bins (whisper-large-v3's, the round's model) or 80.
const (
	LibriSpeechManifest = "dev-all-repack.json"
	// AudioTensor and MelTensor name a sample's tensor.
	AudioTensor = "audio"
	MelTensor   = "input_features"
)

// WhisperSampleRate is the rate of the reference's audio, in Hz: 16 kHz
// mono 16-bit PCM (speech2text/utils/repackage_librispeech.py writes the
// WAV files with soundfile), which the reference resamples nothing from.
const WhisperSampleRate = 16000

// The features option's values.
const (
	FeaturesAudio  = "audio"
	FeaturesMel128 = "mel128"
	FeaturesMel80  = "mel80"
)

// IsLibriSpeech reports whether path is a directory holding
// dev-all-repack.json, or a JSON file whose first entry is a LibriSpeech
// manifest's utterance (files and original_duration).
func IsLibriSpeech(path string) bool {
	if dataset.IsFile(filepath.Join(path, LibriSpeechManifest)) {
		return true
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	dec := json.NewDecoder(f)
	if t, err := dec.Token(); err != nil || t != json.Delim('[') || !dec.More() {
		return false
	}
	var first struct {
		Files    json.RawMessage `json:"files"`
		Duration json.RawMessage `json:"original_duration"`
	}
	return dec.Decode(&first) == nil && first.Files != nil && first.Duration != nil
}

// librispeech is an open LibriSpeech manifest: each sample's WAV file
// and where its samples are.
type librispeech struct {
	manifest string
	files    []string
	wav      []wav.Data
	mel      *LogMel // nil: the audio itself
}

var _ dataset.Dataset = (*librispeech)(nil)

// OpenLibriSpeech opens a LibriSpeech manifest (or the directory holding
// dev-all-repack.json) with features "audio" (or ""), "mel128" or
// "mel80". Every sample's WAV header is read and checked now.
func OpenLibriSpeech(path, features string) (dataset.Dataset, error) {
	manifest := path
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		manifest = filepath.Join(path, LibriSpeechManifest)
	}
	d := &librispeech{manifest: manifest}
	switch features {
	case "", FeaturesAudio:
	case FeaturesMel128, FeaturesMel80:
		n := 128
		if features == FeaturesMel80 {
			n = 80
		}
		d.mel, _ = NewLogMel(n)
	default:
		return nil, fmt.Errorf("data set %s: features %q: want %s, %s or %s", path, features, FeaturesAudio, FeaturesMel128, FeaturesMel80)
	}
	f, err := os.Open(manifest)
	if err != nil {
		return nil, fmt.Errorf("data set %s: %w", path, err)
	}
	defer f.Close()
	utts, err := ReadWhisperUtterances(f)
	if err != nil {
		return nil, fmt.Errorf("data set %s: %w: %w", manifest, dataset.ErrCorrupt, err)
	}
	if len(utts) == 0 {
		return nil, fmt.Errorf("data set %s: %w: no utterance of at most 30 s with a transcript", manifest, dataset.ErrCorrupt)
	}
	for i, u := range utts {
		file, w, err := openUtterance(filepath.Dir(manifest), u)
		if err != nil {
			return nil, fmt.Errorf("data set %s: sample %d (manifest entry %d): %w", manifest, i, u.Entry, err)
		}
		d.files, d.wav = append(d.files, file), append(d.wav, w)
	}
	return d, nil
}

// openUtterance finds an utterance's WAV file under dir and reads its
// header.
func openUtterance(dir string, u WhisperUtterance) (string, wav.Data, error) {
	if u.Audio == "" {
		return "", wav.Data{}, fmt.Errorf("%w: no file of speed 1", dataset.ErrCorrupt)
	}
	file := u.Audio
	if !filepath.IsAbs(file) {
		file = filepath.Join(dir, file)
	}
	f, err := os.Open(file)
	if errors.Is(err, fs.ErrNotExist) {
		return "", wav.Data{}, fmt.Errorf("%w: %w", dataset.ErrNotFound, err)
	}
	if err != nil {
		return "", wav.Data{}, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "", wav.Data{}, err
	}
	w, err := wav.Parse(f, st.Size(), WhisperSampleRate)
	if err == nil && w.Samples == 0 {
		err = errors.New("no audio samples")
	}
	if err != nil {
		return "", wav.Data{}, fmt.Errorf("%s: %w: %w", file, dataset.ErrCorrupt, err)
	}
	return file, w, nil
}

func (d *librispeech) Name() string  { return d.manifest }
func (d *librispeech) Len() int      { return len(d.files) }
func (d *librispeech) Labels() []int { return nil }
func (d *librispeech) Close() error  { return nil }

// Truth is the manifest accuracy_eval.py reads.
func (d *librispeech) Truth() string { return d.manifest }
func (d *librispeech) Form() string {
	f := "16 kHz audio, float32 [samples]"
	if d.mel != nil {
		f = fmt.Sprintf("Whisper's log-mel features, float32 [%d, %d]", d.mel.Mels(), MelFrames)
	}
	return "LibriSpeech as the Whisper reference prepares it (manifest and WAV files), each utterance as " + f
}

func (d *librispeech) Schema() dataset.Schema {
	if d.mel != nil {
		return dataset.Schema{{Name: MelTensor, DType: dataset.Float32, Shape: []int{d.mel.Mels(), MelFrames}}}
	}
	return dataset.Schema{{Name: AudioTensor, DType: dataset.Float32, Shape: []int{dataset.Varies}}}
}

func (d *librispeech) Shapes(i int) ([][]int, error) {
	if i < 0 || i >= len(d.files) {
		return nil, fmt.Errorf("data set %s: sample index %d out of range [0, %d)", d.manifest, i, len(d.files))
	}
	if d.mel != nil {
		return [][]int{{d.mel.Mels(), MelFrames}}, nil
	}
	return [][]int{{d.wav[i].Samples}}, nil
}

func (d *librispeech) ReadSample(i int, dst []byte) error {
	shapes, err := d.Shapes(i)
	if err != nil {
		return err
	}
	if n := d.Schema().SampleBytes(shapes); len(dst) != n {
		return fmt.Errorf("data set %s: buffer of %d bytes for the %d-byte sample %d", d.manifest, len(dst), n, i)
	}
	audio, err := readWAVSamples(d.files[i], d.wav[i])
	if err != nil {
		return fmt.Errorf("data set %s: sample %d: %w", d.manifest, i, err)
	}
	if d.mel == nil {
		putFloat32s(dst, audio)
		return nil
	}
	feat := make([]float32, d.mel.Mels()*MelFrames)
	d.mel.Compute(feat, audio)
	putFloat32s(dst, feat)
	return nil
}

// readWAVSamples reads the samples of a WAV file whose header said w.
func readWAVSamples(file string, w wav.Data) ([]float32, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	pcm := make([]byte, 2*w.Samples)
	if _, err := f.ReadAt(pcm, w.Offset); err != nil {
		return nil, fmt.Errorf("%s: %w: %w", file, dataset.ErrCorrupt, err)
	}
	audio := make([]float32, w.Samples)
	wav.PCMToFloat(audio, pcm)
	return audio, nil
}

// putFloat32s writes v into dst as little-endian float32.
func putFloat32s(dst []byte, v []float32) {
	for i, x := range v {
		binary.LittleEndian.PutUint32(dst[4*i:], math.Float32bits(x))
	}
}

// Reader reads a LibriSpeech manifest (or the directory
// holding dev-all-repack.json) with the features the options name.
var Reader = dataset.Reader{
	Is:   func(p string, _ dataset.Options) bool { return IsLibriSpeech(p) },
	Open: func(p string, o dataset.Options) (dataset.Dataset, error) { return OpenLibriSpeech(p, o.Features) },
}

// Scorer is Whisper's: accuracy_eval.py's word error rate.
var Scorer = accuracy.Scorer{Name: "whisper", Script: "speech2text/accuracy_eval.py", Needs: []string{accuracy.NeedTruth, accuracy.NeedVocab},
	VocabIs: "openai-whisper's normalizers/english.json (its spelling table)", Score: scoreWER}

func scoreWER(log io.Reader, in accuracy.Inputs) (accuracy.Score, error) {
	if in.Vocab == "" {
		return nil, errors.New("whisper: no spelling table (--vocab): the normalizer reads openai-whisper's normalizers/english.json")
	}
	spellings, err := ReadSpellings(in.Vocab)
	if err != nil {
		return nil, err
	}
	f, err := accuracy.OpenInput("whisper manifest (--truth)", in.Truth)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	refs, err := ReadWhisperManifest(f)
	if err != nil {
		return nil, fmt.Errorf("whisper manifest %s: %w", in.Truth, err)
	}
	return WER(log, refs, NewEnglishNormalizer(spellings), in.Dtype)
}
