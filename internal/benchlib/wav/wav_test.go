package wav

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testRate is the Whisper reference's rate, the one the tests parse at.
const testRate = 16000

// wavWith is a valid WAV of samples with the fmt fields changed by f.
func wavWith(samples int, f func(b []byte)) []byte {
	b := Write(make([]int16, samples), testRate)
	if f != nil {
		f(b)
	}
	return b
}

func TestParseWAV(t *testing.T) {
	t.Parallel()
	le := binary.LittleEndian
	extensible := func() []byte {
		b := Write([]int16{1, 2, 3}, testRate)
		fmtc := append([]byte(nil), b[20:36]...)
		le.PutUint16(fmtc[0:], formatExtensible)
		fmtc = append(fmtc, 22, 0, 16, 0, 4, 0, 0, 0)
		fmtc = append(fmtc, extensiblePCM[:]...)
		out := append([]byte("RIFF\x00\x00\x00\x00WAVEfmt "), le.AppendUint32(nil, uint32(len(fmtc)))...)
		out = append(out, fmtc...)
		out = append(out, "LIST\x03\x00\x00\x00abc\x00"...) // an odd chunk, padded
		return append(out, b[36:]...)
	}
	for _, tt := range []struct {
		name    string
		b       []byte
		samples int
		err     string
	}{
		{name: "pcm", b: wavWith(5, nil), samples: 5},
		{name: "extensible pcm and a padded chunk", b: extensible(), samples: 3},
		{name: "stereo", b: wavWith(4, func(b []byte) { le.PutUint16(b[22:], 2) }), err: "2 channels: want mono"},
		{name: "44.1 kHz", b: wavWith(4, func(b []byte) { le.PutUint32(b[24:], 44100) }), err: "sample rate 44100 Hz: want 16000"},
		{name: "float", b: wavWith(4, func(b []byte) { le.PutUint16(b[20:], 3) }), err: "sample format 0x3: want integer PCM"},
		{name: "8-bit", b: wavWith(4, func(b []byte) { le.PutUint16(b[34:], 8) }), err: "8-bit samples in 2-byte blocks"},
		{name: "8-bit in 1-byte blocks", b: wavWith(4, func(b []byte) { le.PutUint16(b[32:], 1); le.PutUint16(b[34:], 8) }), err: "8-bit samples in 1-byte blocks"},
		{name: "truncated data", b: wavWith(4, nil)[:50], err: `truncated: chunk "data" at byte 36 holds 8 bytes, the file ends 6 bytes after it starts`},
		{name: "odd data", b: wavWith(4, func(b []byte) { le.PutUint32(b[40:], 7) }), err: "data chunk of 7 bytes is not whole 16-bit samples"},
		{name: "no data", b: wavWith(0, nil)[:36], err: "no data chunk"},
		{name: "short fmt", b: wavWith(4, func(b []byte) { le.PutUint32(b[16:], 8) }), err: "fmt chunk of 8 bytes, want at least 16"},
		{name: "not riff", b: []byte("RIFX\x00\x00\x00\x00WAVE"), err: "not a RIFF WAVE file"},
		{name: "short", b: []byte("RIFF"), err: "shorter than a RIFF header"},
		{name: "data first", b: append([]byte("RIFF\x00\x00\x00\x00WAVEdata\x00\x00\x00\x00"), wavWith(1, nil)[12:]...), err: "data chunk before the fmt chunk"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w, err := Parse(bytes.NewReader(tt.b), int64(len(tt.b)), testRate)
			if tt.err != "" {
				assert.ErrorContains(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.samples, w.Samples)
			assert.LessOrEqual(t, w.Offset+2*int64(w.Samples), int64(len(tt.b)))
		})
	}
}

// TestPCMToFloat: samples scale by 1/32768, as soundfile reads them.
func TestPCMToFloat(t *testing.T) {
	t.Parallel()
	b := Write([]int16{-32768, -1, 0, 16384, 32767}, testRate)
	got := make([]float32, 5)
	PCMToFloat(got, b[44:])
	assert.Equal(t, []float32{-1, -1.0 / 32768, 0, 0.5, 32767.0 / 32768}, got)
}

// FuzzParseWAV: any bytes give a header whose data lies in the file, or
// an error.
func FuzzParseWAV(f *testing.F) {
	f.Add(Write([]int16{1, -2, 3}, testRate))
	f.Add(wavWith(2, func(b []byte) { binary.LittleEndian.PutUint32(b[4:], 0xFFFFFFFF) }))
	f.Add([]byte("RIFF\x00\x00\x00\x00WAVELIST\xff\xff\xff\xff"))
	f.Fuzz(func(t *testing.T, b []byte) {
		w, err := Parse(bytes.NewReader(b), int64(len(b)), testRate)
		if err != nil {
			return
		}
		if w.Offset < 12 || w.Samples < 0 || w.Offset+2*int64(w.Samples) > int64(len(b)) {
			t.Fatalf("data at %d, %d samples, in a %d-byte file", w.Offset, w.Samples, len(b))
		}
	})
}
