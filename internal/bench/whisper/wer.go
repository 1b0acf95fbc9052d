package whisper

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/mlperf-host/mlperf-host/internal/accuracy"
	"github.com/mlperf-host/mlperf-host/internal/benchlib/py"
	"github.com/mlperf-host/mlperf-host/internal/benchmarks"
)

// Response is what a response holds, as the official script reads it
// (docs/benchmarks.md says it at length).
const Response = "the transcript as character indices into the script's 42-label alphabet"

// WordAccuracy is the Whisper benchmark's quality metric: 100 minus the
// word error rate in percent (the submission checker's "ACCURACY").
const WordAccuracy benchmarks.Metric = "ACCURACY"

// WhisperLabels is the alphabet of the Whisper benchmark's responses and
// transcripts: a response is the indices of its characters in it.
const WhisperLabels = " abcdefghijklmnopqrstuvwxyz'0123456789$%+-"

// whisperMaxDuration is accuracy_eval.py's MAX_DURATION default: the
// manifest's utterances longer than this many seconds are not samples.
const whisperMaxDuration = 30.0

// WERResult is a Whisper accuracy log's score as accuracy_eval.py
// computes it.
type WERResult struct {
	// Errors is the word-level edit distance summed over the entries;
	// Words the references' words.
	Errors, Words int
}

// WER is the word error rate, a fraction.
func (r WERResult) WER() float64 { return float64(r.Errors) / float64(r.Words) }

// Text is the script's line: "Word Error Rate: 2.06...%, accuracy=97.93...%".
func (r WERResult) Text() string {
	wer := r.WER()
	return fmt.Sprintf("Word Error Rate: %s%%, accuracy=%s%%", py.Float(wer*100), py.Float((1-wer)*100))
}

// Value implements accuracy.Score.
func (r WERResult) Value(m benchmarks.Metric) (float64, bool) {
	return (1 - r.WER()) * 100, m == WordAccuracy
}

// WhisperUtterance is one sample of a LibriSpeech manifest, as
// the reference's Manifest keeps it.
type WhisperUtterance struct {
	// Entry is the utterance's index in the manifest's array.
	Entry int
	// Transcript is cut to the characters of [WhisperLabels].
	Transcript string
	// Audio is the fname of the utterance's first file of speed 1 (the
	// reference's filter_speed), as the manifest writes it; "" when the
	// utterance has none.
	Audio string
	// Duration is the original_duration, in seconds.
	Duration float64
}

// ReadWhisperUtterances reads a LibriSpeech manifest as the reference's
// Manifest (speech2text/manifest.py) does, for both its QSL and
// accuracy_eval.py: a JSON array of utterances, those longer than 30 s
// (original_duration) or without a string transcript left out, each
// remaining one a sample in file order.
func ReadWhisperUtterances(r io.Reader) ([]WhisperUtterance, error) {
	var entries []struct {
		Transcript       json.RawMessage `json:"transcript"`
		OriginalDuration *float64        `json:"original_duration"`
		Files            []struct {
			Fname string  `json:"fname"`
			Speed float64 `json:"speed"`
		} `json:"files"`
	}
	if err := json.NewDecoder(r).Decode(&entries); err != nil {
		return nil, fmt.Errorf("want a JSON array of utterances: %w", err)
	}
	var utts []WhisperUtterance
	for i, e := range entries {
		if e.OriginalDuration == nil {
			return nil, fmt.Errorf("utterance %d: no original_duration", i)
		}
		if *e.OriginalDuration > whisperMaxDuration {
			continue
		}
		if e.Transcript == nil {
			return nil, fmt.Errorf("utterance %d: no transcript (a text_filepath is not read: the reference's manifests hold the transcripts)", i)
		}
		var text *string
		if json.Unmarshal(e.Transcript, &text) != nil || text == nil {
			continue // the script drops a transcript that is not a string
		}
		u := WhisperUtterance{Entry: i, Duration: *e.OriginalDuration, Transcript: strings.Map(func(c rune) rune {
			if strings.ContainsRune(WhisperLabels, c) {
				return c
			}
			return -1
		}, *text)}
		for _, f := range e.Files {
			if f.Speed == 1 {
				u.Audio = f.Fname
				break
			}
		}
		utts = append(utts, u)
	}
	return utts, nil
}

// ReadWhisperManifest reads the references of a LibriSpeech manifest:
// the transcripts of [ReadWhisperUtterances].
func ReadWhisperManifest(r io.Reader) ([]string, error) {
	utts, err := ReadWhisperUtterances(r)
	if err != nil {
		return nil, err
	}
	refs := make([]string, len(utts))
	for i, u := range utts {
		refs[i] = u.Transcript
	}
	return refs, nil
}

// whisperDtypeSize is the byte size of each --output_dtype of
// accuracy_eval.py, which reads the response with Python's array module:
// its "int32" is array type "l", a C long, 8 bytes on 64-bit Linux.
var whisperDtypeSize = map[string]int{"int8": 1, "int16": 2, "int32": 8, "int64": 8}

// WER scores a Whisper accuracy log as accuracy_eval.py: every entry (a
// repeated qsl_idx counts again, as the script counts it) is decoded from
// character indices of dtype into text, normalized with norm as is the
// reference refs[qsl_idx], and their word-level edit distance, words
// concatenated on either side counting as a match, is summed over the
// entries and divided by the references' words.
//
// # Errors
//
// Wraps [accuracy.ErrLog] for a malformed log, a qsl_idx without a reference, data
// that is not whole values or an index outside the alphabet; an error for
// references without a word.
func WER(log io.Reader, refs []string, norm *EnglishNormalizer, dtype string) (WERResult, error) {
	if dtype == "" {
		dtype = "int64"
	}
	size, ok := whisperDtypeSize[dtype]
	if !ok {
		return WERResult{}, fmt.Errorf("whisper: response dtype %q: want int8, int16, int32 or int64", dtype)
	}
	var r WERResult
	err := accuracy.ReadLog(log, func(e accuracy.Entry) error {
		if e.QSLIdx >= uint64(len(refs)) {
			return fmt.Errorf("%w: qsl_idx %d: the manifest has %d utterances of at most 30 s", accuracy.ErrLog, e.QSLIdx, len(refs))
		}
		if len(e.Data)%size != 0 {
			return fmt.Errorf("%w: qsl_idx %d: %d bytes are not whole %d-byte %s values", accuracy.ErrLog, e.QSLIdx, len(e.Data), size, dtype)
		}
		var text strings.Builder
		for i := 0; i < len(e.Data); i += size {
			var c int64
			switch size {
			case 1:
				c = int64(int8(e.Data[i]))
			case 2:
				c = int64(int16(binary.LittleEndian.Uint16(e.Data[i:])))
			default:
				c = int64(binary.LittleEndian.Uint64(e.Data[i:]))
			}
			if c < 0 || c >= int64(len(WhisperLabels)) {
				return fmt.Errorf("%w: qsl_idx %d: character index %d is outside the %d-character alphabet", accuracy.ErrLog, e.QSLIdx, c, len(WhisperLabels))
			}
			text.WriteByte(WhisperLabels[c])
		}
		hyp := py.Fields(norm.Normalize(text.String()))
		ref := py.Fields(norm.Normalize(refs[e.QSLIdx]))
		r.Errors += concatenatedWordErrors(hyp, ref)
		r.Words += len(ref)
		return nil
	})
	if err != nil {
		return WERResult{}, err
	}
	if r.Words == 0 {
		return WERResult{}, errors.New("whisper: the logged samples' references have no word")
	}
	return r, nil
}

// concatenatedWordErrors is helpers.py's compute_wer_with_concatenation:
// the hypothesis and the reference are aligned word by word, where up to
// three consecutive words of one side equal to one word of the other
// align with it as a single item; the result is the edit distance between
// the two aligned sequences.
func concatenatedWordErrors(hyp, ref []string) int {
	var refAl, hypAl []string
	i, j := 0, 0
	for i < len(ref) && j < len(hyp) {
		if ref[i] == hyp[j] {
			refAl, hypAl = append(refAl, ref[i]), append(hypAl, hyp[j])
			i, j = i+1, j+1
			continue
		}
		ri, hj := 1, 1
		for k := 1; k <= 3; k++ {
			if i+k <= len(ref) && strings.Join(ref[i:i+k], "") == hyp[j] {
				ri = k
				break
			}
			if j+k <= len(hyp) && strings.Join(hyp[j:j+k], "") == ref[i] {
				hj = k
				break
			}
		}
		refAl = append(refAl, strings.Join(ref[i:i+ri], ""))
		hypAl = append(hypAl, strings.Join(hyp[j:j+hj], ""))
		i, j = i+ri, j+hj
	}
	refAl = append(refAl, ref[i:]...)
	hypAl = append(hypAl, hyp[j:]...)
	return levenshtein(refAl, hypAl)
}

// levenshtein is the edit distance between two word sequences.
func levenshtein(a, b []string) int {
	if len(a) > len(b) {
		a, b = b, a
	}
	cur := make([]int, len(a)+1)
	prev := make([]int, len(a)+1)
	for j := range cur {
		cur[j] = j
	}
	for i := 1; i <= len(b); i++ {
		prev, cur = cur, prev
		cur[0] = i
		for j := 1; j <= len(a); j++ {
			change := prev[j-1]
			if a[j-1] != b[i-1] {
				change++
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, change)
		}
	}
	return cur[len(a)]
}
