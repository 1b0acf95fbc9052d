package refdata

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
)

// WAV files as the Whisper reference's LibriSpeech holds them
// (speech2text/utils/repackage_librispeech.py writes them with
// soundfile): RIFF WAVE, 16-bit signed integer PCM, one channel, 16 kHz.
// The parser is strict: any other rate, channel count, sample format or
// a data chunk running past the file's end is an error saying which.
const (
	// WhisperSampleRate is the rate of the reference's audio, in Hz.
	WhisperSampleRate = 16000
	wavBits           = 16
	wavFormatPCM      = 1
	// wavFormatExtensible is WAVE_FORMAT_EXTENSIBLE, whose sub-format
	// GUID then says PCM.
	wavFormatExtensible = 0xFFFE
)

// wavExtensiblePCM is KSDATAFORMAT_SUBTYPE_PCM, the sub-format GUID of
// an extensible WAV holding integer PCM.
var wavExtensiblePCM = [16]byte{1, 0, 0, 0, 0, 0, 0x10, 0, 0x80, 0, 0, 0xAA, 0, 0x38, 0x9B, 0x71}

// wavData is where a WAV file's samples are.
type wavData struct {
	// Offset is the data chunk's first byte; Samples the number of
	// 16-bit samples it holds.
	Offset  int64
	Samples int
}

// parseWAV reads the header of a WAV file of size bytes: its fmt chunk
// must say 16 kHz mono 16-bit PCM and its data chunk must lie within the
// file. Other chunks (LIST, fact) are skipped.
func parseWAV(r io.ReaderAt, size int64) (wavData, error) {
	var hdr [12]byte
	if _, err := r.ReadAt(hdr[:], 0); err != nil {
		return wavData{}, fmt.Errorf("not a WAV file: %d bytes, shorter than a RIFF header", size)
	}
	if string(hdr[0:4]) != "RIFF" || string(hdr[8:12]) != "WAVE" {
		return wavData{}, errors.New("not a RIFF WAVE file")
	}
	var haveFmt bool
	off := int64(12)
	for {
		var ch [8]byte
		if off+8 > size {
			if haveFmt {
				return wavData{}, errors.New("no data chunk")
			}
			return wavData{}, errors.New("no fmt chunk")
		}
		if _, err := r.ReadAt(ch[:], off); err != nil {
			return wavData{}, fmt.Errorf("chunk at byte %d: %w", off, err)
		}
		id, n := string(ch[0:4]), int64(binary.LittleEndian.Uint32(ch[4:8]))
		body := off + 8
		if body+n > size {
			return wavData{}, fmt.Errorf("truncated: chunk %q at byte %d holds %d bytes, the file ends %d bytes after it starts", id, off, n, size-body)
		}
		switch id {
		case "fmt ":
			if err := checkWAVFormat(r, body, n); err != nil {
				return wavData{}, err
			}
			haveFmt = true
		case "data":
			if !haveFmt {
				return wavData{}, errors.New("data chunk before the fmt chunk")
			}
			if n%2 != 0 {
				return wavData{}, fmt.Errorf("data chunk of %d bytes is not whole 16-bit samples", n)
			}
			if n/2 > math.MaxInt32 {
				return wavData{}, fmt.Errorf("data chunk of %d bytes is too long", n)
			}
			return wavData{Offset: body, Samples: int(n / 2)}, nil
		}
		off = body + n + n%2 // chunks are padded to even sizes
	}
}

// checkWAVFormat checks a fmt chunk of n bytes at off.
func checkWAVFormat(r io.ReaderAt, off, n int64) error {
	if n < 16 {
		return fmt.Errorf("fmt chunk of %d bytes, want at least 16", n)
	}
	b := make([]byte, min(n, 40))
	if _, err := r.ReadAt(b, off); err != nil {
		return fmt.Errorf("fmt chunk: %w", err)
	}
	format := binary.LittleEndian.Uint16(b[0:])
	channels := binary.LittleEndian.Uint16(b[2:])
	rate := binary.LittleEndian.Uint32(b[4:])
	align := binary.LittleEndian.Uint16(b[12:])
	bits := binary.LittleEndian.Uint16(b[14:])
	switch {
	case format == wavFormatPCM:
	case format == wavFormatExtensible && len(b) >= 40 && [16]byte(b[24:40]) == wavExtensiblePCM:
	default:
		return fmt.Errorf("sample format %#x: want integer PCM (1)", format)
	}
	switch {
	case channels != 1:
		return fmt.Errorf("%d channels: want mono", channels)
	case rate != WhisperSampleRate:
		return fmt.Errorf("sample rate %d Hz: want %d (the reference resamples nothing)", rate, WhisperSampleRate)
	case bits != wavBits || align != wavBits/8:
		return fmt.Errorf("%d-bit samples in %d-byte blocks: want 16-bit PCM", bits, align)
	}
	return nil
}

// pcmToFloat converts little-endian 16-bit samples to float32 as
// soundfile (librosa.load) reads them: divided by 32768.
func pcmToFloat(dst []float32, pcm []byte) {
	for i := range dst {
		dst[i] = float32(int16(binary.LittleEndian.Uint16(pcm[2*i:]))) / 32768
	}
}

// WriteWAV writes 16 kHz mono 16-bit PCM samples as a WAV file's bytes,
// as soundfile writes them (the fixtures' audio).
func WriteWAV(samples []int16) []byte {
	n := 2 * len(samples)
	b := make([]byte, 0, 44+n)
	b = append(b, "RIFF"...)
	b = binary.LittleEndian.AppendUint32(b, uint32(36+n))
	b = append(b, "WAVEfmt "...)
	b = binary.LittleEndian.AppendUint32(b, 16)
	b = binary.LittleEndian.AppendUint16(b, wavFormatPCM)
	b = binary.LittleEndian.AppendUint16(b, 1)
	b = binary.LittleEndian.AppendUint32(b, WhisperSampleRate)
	b = binary.LittleEndian.AppendUint32(b, WhisperSampleRate*wavBits/8)
	b = binary.LittleEndian.AppendUint16(b, wavBits/8)
	b = binary.LittleEndian.AppendUint16(b, wavBits)
	b = append(b, "data"...)
	b = binary.LittleEndian.AppendUint32(b, uint32(n))
	for _, s := range samples {
		b = binary.LittleEndian.AppendUint16(b, uint16(s))
	}
	return b
}

// putFloat32s writes v into dst as little-endian float32.
func putFloat32s(dst []byte, v []float32) {
	for i, x := range v {
		binary.LittleEndian.PutUint32(dst[4*i:], math.Float32bits(x))
	}
}
