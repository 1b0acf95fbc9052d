package unet3d

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/internal/accuracy"
	"github.com/mlperf-host/mlperf-host/internal/accuracy/accuracytest"
)

// The fixture testdata/kits19 (three cases of different shapes, written
// with nibabel by tools/accuracyref/make_fixtures.py) and the expected
// line, which the official accuracy_kits.py prints on it
// (tools/accuracyref/verify.sh; per case, kidney/tumor: case_00000
// 0.86486/0.55556, case_00003 0.87850/0.75000, case_00012 0.93023/0.69565).
func TestKiTSDiceFixture(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("testdata", "kits19")
	cases, err := ReadKiTSTruth(dir)
	require.NoError(t, err)
	require.Len(t, cases, 3)
	assert.Equal(t, "case_00000", cases[0].Name)
	assert.Equal(t, [3]int{4, 7, 3}, cases[0].Truth.Shape)
	f, err := os.Open(filepath.Join(dir, "mlperf_log_accuracy.json"))
	require.NoError(t, err)
	defer f.Close()
	res, err := KiTSDice(f, cases, "uint8")
	require.NoError(t, err)
	assert.Equal(t, "Accuracy: mean = 0.77913, kidney = 0.8912, tumor = 0.6671", res.Text())
	assert.InDelta(t, 0.7791349803810516, res.Mean, 1e-15)
}

// TestKiTSDiceByHand: one 1x2x2 case, truth [0 1 1 2], prediction
// [1 1 2 2]: kidney 2·1/(2+2), tumor 2·1/(1+2).
func TestKiTSDiceByHand(t *testing.T) {
	t.Parallel()
	cases := []KiTSCase{{Name: "case_00000", Truth: Volume{Shape: [3]int{1, 2, 2}, Labels: []uint8{0, 1, 1, 2}}}}
	tests := []struct {
		name, dtype string
		data        []byte
	}{
		{name: "uint8", dtype: "uint8", data: []byte{1, 1, 2, 2}},
		{name: "float32", dtype: "float32", data: accuracytest.F32(1, 1, 2, 2)},
		{name: "int64", dtype: "int64", data: binary.LittleEndian.AppendUint64(binary.LittleEndian.AppendUint64(
			binary.LittleEndian.AppendUint64(binary.LittleEndian.AppendUint64(nil, 1), 1), 2), 2)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res, err := KiTSDice(accuracytest.Log(t, []accuracy.Entry{{QSLIdx: 0, Data: tt.data}}), cases, tt.dtype)
			require.NoError(t, err)
			assert.InDelta(t, (2+1e-6)/(4+1e-6), res.Kidney, 1e-15)
			assert.InDelta(t, (2+1e-6)/(3+1e-6), res.Tumor, 1e-15)
			assert.InDelta(t, (res.Kidney+res.Tumor)/2, res.Mean, 1e-15)
		})
	}
}

func TestKiTSDiceErrors(t *testing.T) {
	t.Parallel()
	two := []KiTSCase{
		{Name: "case_00000", Truth: Volume{Shape: [3]int{1, 1, 2}, Labels: []uint8{0, 1}}},
		{Name: "case_00001", Truth: Volume{Shape: [3]int{1, 1, 2}, Labels: []uint8{2, 1}}},
	}
	tests := []struct {
		name, dtype string
		entries     []accuracy.Entry
		err         string
	}{
		{name: "dtype", dtype: "float16", err: `dtype "float16"`},
		{name: "no case", dtype: "uint8", entries: []accuracy.Entry{{QSLIdx: 2, Data: []byte{0, 0}}}, err: "qsl_idx 2 has no case"},
		{name: "size", dtype: "uint8", entries: []accuracy.Entry{{QSLIdx: 0, Data: []byte{0}}}, err: "1 bytes, want [1 1 2] voxels"},
		{name: "class", dtype: "uint8", entries: []accuracy.Entry{{QSLIdx: 0, Data: []byte{0, 3}}}, err: "outside 0-2"},
		{name: "twice", dtype: "uint8", entries: []accuracy.Entry{{QSLIdx: 0, Data: []byte{0, 1}}, {QSLIdx: 0, Data: []byte{0, 1}}}, err: "answered twice"},
		{name: "missing", dtype: "uint8", entries: []accuracy.Entry{{QSLIdx: 0, Data: []byte{0, 1}}}, err: "case_00001 (qsl_idx 1) has no response"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := KiTSDice(accuracytest.Log(t, tt.entries), two, tt.dtype)
			require.ErrorIs(t, err, accuracy.ErrLog)
			assert.Contains(t, err.Error(), tt.err)
		})
	}
}

// niftiFile builds a NIfTI-1 file of int16 voxels (stored first
// dimension fastest) with a scale, in the given byte order.
func niftiFile(bo binary.ByteOrder, dims [3]int16, voxels []int16, slope, inter float32) []byte {
	h := make([]byte, 352)
	bo.PutUint32(h, 348)
	bo.PutUint16(h[40:], 3)
	for i, d := range dims {
		bo.PutUint16(h[42+2*i:], uint16(d))
	}
	bo.PutUint16(h[70:], 4)
	bo.PutUint16(h[72:], 16)
	bo.PutUint32(h[108:], math.Float32bits(352))
	bo.PutUint32(h[112:], math.Float32bits(slope))
	bo.PutUint32(h[116:], math.Float32bits(inter))
	for _, v := range voxels {
		h = append(h, 0, 0)
		bo.PutUint16(h[len(h)-2:], uint16(v))
	}
	return h
}

func TestReadNIfTI(t *testing.T) {
	t.Parallel()
	// 2x3x1: voxel (i,j) stored at i + 2j; C order is (i*3 + j).
	stored := []int16{0, 1, 2, 3, 4, 5}
	wantC := []uint8{0, 2, 4, 1, 3, 5}
	for _, bo := range []binary.ByteOrder{binary.LittleEndian, binary.BigEndian} {
		v, err := ReadNIfTI(bytes.NewReader(niftiFile(bo, [3]int16{2, 3, 1}, stored, 0, 0)))
		require.NoError(t, err, "%v", bo)
		assert.Equal(t, [3]int{2, 3, 1}, v.Shape)
		assert.Equal(t, wantC, v.Labels)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	_, err := zw.Write(niftiFile(binary.LittleEndian, [3]int16{2, 3, 1}, stored, 2, 1))
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	v, err := ReadNIfTI(bytes.NewReader(gz.Bytes()))
	require.NoError(t, err)
	assert.Equal(t, []uint8{1, 5, 9, 3, 7, 11}, v.Labels, "scaled by 2, plus 1")

	_, err = ReadNIfTI(bytes.NewReader(make([]byte, 400)))
	require.ErrorContains(t, err, "not a NIfTI-1 file")
	_, err = ReadNIfTI(bytes.NewReader(niftiFile(binary.LittleEndian, [3]int16{2, 3, 1}, stored[:3], 0, 0)))
	require.ErrorContains(t, err, "6 voxels")
}

func FuzzReadNIfTI(f *testing.F) {
	f.Add(niftiFile(binary.LittleEndian, [3]int16{2, 3, 1}, []int16{0, 1, 2, 3, 4, 5}, 0, 0))
	f.Add(niftiFile(binary.BigEndian, [3]int16{1, 1, 1}, []int16{7}, 1, 0))
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := ReadNIfTI(bytes.NewReader(b))
		if err == nil {
			require.Len(t, v.Labels, v.Shape[0]*v.Shape[1]*v.Shape[2])
		}
	})
}
