package wav

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
)

// The parser is strict: any other rate, channel count, sample format or
// a data chunk running past the file's end is an error saying which.
const (
	sampleBits = 16
	formatPCM  = 1
	// formatExtensible is WAVE_FORMAT_EXTENSIBLE, whose sub-format GUID
	// then says PCM.
	formatExtensible = 0xFFFE
)

// extensiblePCM is KSDATAFORMAT_SUBTYPE_PCM, the sub-format GUID of
// an extensible WAV holding integer PCM.
var extensiblePCM = [16]byte{1, 0, 0, 0, 0, 0, 0x10, 0, 0x80, 0, 0, 0xAA, 0, 0x38, 0x9B, 0x71}

// Data is where a WAV file's samples are.
type Data struct {
	// Offset is the data chunk's first byte; Samples the number of
	// 16-bit samples it holds.
	Offset  int64
	Samples int
}

// Parse reads the header of a WAV file of size bytes: its fmt chunk must
// say mono 16-bit PCM at rate Hz and its data chunk must lie within the
// file. Other chunks (LIST, fact) are skipped.
func Parse(r io.ReaderAt, size int64, rate int) (Data, error) {
	var hdr [12]byte
	if _, err := r.ReadAt(hdr[:], 0); err != nil {
		return Data{}, fmt.Errorf("not a WAV file: %d bytes, shorter than a RIFF header", size)
	}
	if string(hdr[0:4]) != "RIFF" || string(hdr[8:12]) != "WAVE" {
		return Data{}, errors.New("not a RIFF WAVE file")
	}
	var haveFmt bool
	off := int64(12)
	for {
		var ch [8]byte
		if off+8 > size {
			if haveFmt {
				return Data{}, errors.New("no data chunk")
			}
			return Data{}, errors.New("no fmt chunk")
		}
		if _, err := r.ReadAt(ch[:], off); err != nil {
			return Data{}, fmt.Errorf("chunk at byte %d: %w", off, err)
		}
		id, n := string(ch[0:4]), int64(binary.LittleEndian.Uint32(ch[4:8]))
		body := off + 8
		if body+n > size {
			return Data{}, fmt.Errorf("truncated: chunk %q at byte %d holds %d bytes, the file ends %d bytes after it starts", id, off, n, size-body)
		}
		switch id {
		case "fmt ":
			if err := checkFormat(r, body, n, rate); err != nil {
				return Data{}, err
			}
			haveFmt = true
		case "data":
			if !haveFmt {
				return Data{}, errors.New("data chunk before the fmt chunk")
			}
			if n%2 != 0 {
				return Data{}, fmt.Errorf("data chunk of %d bytes is not whole 16-bit samples", n)
			}
			if n/2 > math.MaxInt32 {
				return Data{}, fmt.Errorf("data chunk of %d bytes is too long", n)
			}
			return Data{Offset: body, Samples: int(n / 2)}, nil
		}
		off = body + n + n%2 // chunks are padded to even sizes
	}
}

// checkFormat checks a fmt chunk of n bytes at off.
func checkFormat(r io.ReaderAt, off, n int64, want int) error {
	if n < 16 {
		return fmt.Errorf("fmt chunk of %d bytes, want at least 16", n)
	}
	b := make([]byte, min(n, 40))
	if _, err := r.ReadAt(b, off); err != nil {
		return fmt.Errorf("fmt chunk: %w", err)
	}
	format := binary.LittleEndian.Uint16(b[0:])
	channels := binary.LittleEndian.Uint16(b[2:])
	rate := int64(binary.LittleEndian.Uint32(b[4:]))
	align := binary.LittleEndian.Uint16(b[12:])
	bits := binary.LittleEndian.Uint16(b[14:])
	switch {
	case format == formatPCM:
	case format == formatExtensible && len(b) >= 40 && [16]byte(b[24:40]) == extensiblePCM:
	default:
		return fmt.Errorf("sample format %#x: want integer PCM (1)", format)
	}
	switch {
	case channels != 1:
		return fmt.Errorf("%d channels: want mono", channels)
	case rate != int64(want):
		return fmt.Errorf("sample rate %d Hz: want %d (the reference resamples nothing)", rate, want)
	case bits != sampleBits || align != sampleBits/8:
		return fmt.Errorf("%d-bit samples in %d-byte blocks: want 16-bit PCM", bits, align)
	}
	return nil
}

// PCMToFloat converts little-endian 16-bit samples to float32 as
// soundfile (librosa.load) reads them: divided by 32768.
func PCMToFloat(dst []float32, pcm []byte) {
	for i := range dst {
		dst[i] = float32(int16(binary.LittleEndian.Uint16(pcm[2*i:]))) / 32768
	}
}

// Write writes mono 16-bit PCM samples at rate Hz as a WAV file's bytes,
// as soundfile writes them (the fixtures' audio).
func Write(samples []int16, rate int) []byte {
	n := 2 * len(samples)
	b := make([]byte, 0, 44+n)
	b = append(b, "RIFF"...)
	b = binary.LittleEndian.AppendUint32(b, uint32(36+n))
	b = append(b, "WAVEfmt "...)
	b = binary.LittleEndian.AppendUint32(b, 16)
	b = binary.LittleEndian.AppendUint16(b, formatPCM)
	b = binary.LittleEndian.AppendUint16(b, 1)
	b = binary.LittleEndian.AppendUint32(b, uint32(rate))
	b = binary.LittleEndian.AppendUint32(b, uint32(rate*sampleBits/8))
	b = binary.LittleEndian.AppendUint16(b, sampleBits/8)
	b = binary.LittleEndian.AppendUint16(b, sampleBits)
	b = append(b, "data"...)
	b = binary.LittleEndian.AppendUint32(b, uint32(n))
	for _, s := range samples {
		b = binary.LittleEndian.AppendUint16(b, uint16(s))
	}
	return b
}
