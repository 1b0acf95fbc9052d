package dataset

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNPYRoundTrip(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		spec Spec
	}{
		{name: "image", spec: Spec{DType: Float32, Shape: []int{3, 4, 5}}},
		{name: "vector", spec: Spec{DType: Int64, Shape: []int{7}}},
		{name: "scalar", spec: Spec{DType: Uint8, Shape: []int{}}},
		{name: "fp16", spec: Spec{DType: Float16, Shape: []int{2, 2}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var b bytes.Buffer
			data := sample(tt.spec, 3)
			require.NoError(t, WriteNPY(&b, tt.spec, data))
			h, err := ReadNPYHeader(bytes.NewReader(b.Bytes()))
			require.NoError(t, err)
			assert.True(t, h.Spec.Equal(tt.spec), "%s != %s", h.Spec, tt.spec)
			assert.Zero(t, h.DataOffset%64, "data is 64-byte aligned")
			assert.Equal(t, data, b.Bytes()[h.DataOffset:])
		})
	}
}

// npyFile builds a .npy file with a given version and dict.
func npyFile(version byte, dict string) []byte {
	b := []byte(npyMagic)
	b = append(b, version, 0)
	if version == 1 {
		b = binary.LittleEndian.AppendUint16(b, uint16(len(dict)))
	} else {
		b = binary.LittleEndian.AppendUint32(b, uint32(len(dict)))
	}
	return append(b, dict...)
}

func TestReadNPYHeader(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		file []byte
		want Spec
		err  string
	}{
		{name: "numpy 1.x", file: npyFile(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 224, 224), }     \n"),
			want: Spec{DType: Float32, Shape: []int{3, 224, 224}}},
		{name: "version 2", file: npyFile(2, "{'descr': '|u1', 'fortran_order': False, 'shape': (28, 28), }\n"),
			want: Spec{DType: Uint8, Shape: []int{28, 28}}},
		{name: "key order and no trailing comma", file: npyFile(3, `{"shape": (10,), "fortran_order": False, "descr": "<i8"}`),
			want: Spec{DType: Int64, Shape: []int{10}}},
		// Fortran order is the same bytes for one dimension.
		{name: "fortran 1-D", file: npyFile(1, "{'descr': '<f4', 'fortran_order': True, 'shape': (5,), }"),
			want: Spec{DType: Float32, Shape: []int{5}}},
		{name: "bad magic", file: []byte("\x93NUMPX\x01\x00\x00\x00"), err: "not a .npy file"},
		{name: "short", file: []byte("\x93NUM"), err: "preamble"},
		{name: "version 4", file: npyFile(4, "{}")[:10], err: "npy version 4"},
		{name: "truncated dict", file: npyFile(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }")[:30], err: "npy header"},
		{name: "fortran 2-D", file: npyFile(1, "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }"), err: "Fortran-ordered"},
		{name: "big-endian", file: npyFile(1, "{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }"), err: "big-endian"},
		{name: "object dtype", file: npyFile(1, "{'descr': '|O', 'fortran_order': False, 'shape': (2,), }"), err: `dtype "|O"`},
		{name: "missing shape", file: npyFile(1, "{'descr': '<f4', 'fortran_order': False, }"), err: "want keys"},
		{name: "unknown key", file: npyFile(1, "{'descr': '<f4', 'x': 1}"), err: "unknown key"},
		{name: "duplicate key", file: npyFile(1, "{'descr': '<f4', 'descr': '<f4'}"), err: "duplicate key"},
		{name: "negative dim", file: npyFile(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }"), err: "shape is not a tuple"},
		{name: "huge", file: npyFile(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (100000, 100000, 100), }"), err: "over the"},
		{name: "trailing", file: npyFile(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), } x"), err: "trailing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h, err := ReadNPYHeader(bytes.NewReader(tt.file))
			if tt.err != "" {
				require.ErrorIs(t, err, ErrCorrupt)
				assert.Contains(t, err.Error(), tt.err)
				return
			}
			require.NoError(t, err)
			assert.True(t, h.Spec.Equal(tt.want), "%s != %s", h.Spec, tt.want)
			assert.Equal(t, int64(len(tt.file)), h.DataOffset)
		})
	}
}

func FuzzReadNPYHeader(f *testing.F) {
	var b bytes.Buffer
	_ = WriteNPY(&b, Spec{DType: Float32, Shape: []int{3, 2}}, make([]byte, 24))
	f.Add(b.Bytes())
	f.Add(npyFile(2, "{'descr': '|u1', 'fortran_order': False, 'shape': (28, 28), }"))
	f.Add(npyFile(1, "{'descr': '<f4', 'fortran_order': True, 'shape': (), }"))
	f.Fuzz(func(t *testing.T, data []byte) {
		h, err := ReadNPYHeader(bytes.NewReader(data))
		if err != nil {
			require.ErrorIs(t, err, ErrCorrupt)
			return
		}
		// What parses re-encodes to a header that parses the same.
		require.LessOrEqual(t, h.DataOffset, int64(len(data)))
		require.Positive(t, h.Spec.DType.Size())
		var out bytes.Buffer
		if h.Spec.Bytes() > 1<<20 {
			return
		}
		require.NoError(t, WriteNPY(&out, h.Spec, make([]byte, h.Spec.Bytes())))
		h2, err := ReadNPYHeader(bytes.NewReader(out.Bytes()))
		require.NoError(t, err)
		require.True(t, h.Spec.Equal(h2.Spec))
	})
}
