package dataset

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// bertLike is a 3-tensor data set of variable length, as BERT's: int32
// input_ids, input_mask and segment_ids of one length per sample.
func bertLike(t testing.TB, n int) *Memory {
	t.Helper()
	schema := Schema{
		{Name: "input_ids", DType: Int32, Shape: []int{Varies}},
		{Name: "input_mask", DType: Int32, Shape: []int{Varies}},
		{Name: "segment_ids", DType: Int32, Shape: []int{Varies}},
	}
	var samples []MemorySample
	for i := range n {
		l := 3 + (i*5)%13
		var data []byte
		for k := range 3 {
			for j := range l {
				data = binary.LittleEndian.AppendUint32(data, uint32(1000*k+100*i+j))
			}
		}
		samples = append(samples, MemorySample{Shapes: [][]int{{l}, {l}, {l}}, Data: data})
	}
	m, err := NewTensorMemory("bert-like", schema, samples, nil)
	require.NoError(t, err)
	return m
}

// volumes is a data set whose one tensor varies in two axes, as 3D-UNet's,
// beside a fixed one.
func volumes(t testing.TB, n int) *Memory {
	t.Helper()
	schema := Schema{
		{Name: "image", DType: Float32, Shape: []int{1, Varies, Varies}},
		{Name: "volume_id", DType: Int64, Shape: []int{1}},
	}
	var samples []MemorySample
	for i := range n {
		h, w := 1+i%3, 2+i%4
		var data []byte
		for j := range h * w {
			data = binary.LittleEndian.AppendUint32(data, uint32(i*100+j))
		}
		data = binary.LittleEndian.AppendUint64(data, uint64(i))
		samples = append(samples, MemorySample{Shapes: [][]int{{1, h, w}, {1}}, Data: data})
	}
	m, err := NewTensorMemory("volumes", schema, samples, []int(nil))
	require.NoError(t, err)
	return m
}

// sameSamples checks that got holds want's schema and every sample's
// shapes and bytes.
func sameSamples(t *testing.T, want, got Dataset) {
	t.Helper()
	require.Equal(t, want.Len(), got.Len())
	assert.Equal(t, want.Schema(), got.Schema())
	for i := range want.Len() {
		ws, err := want.Shapes(i)
		require.NoError(t, err)
		gs, err := got.Shapes(i)
		require.NoError(t, err)
		require.Equal(t, ws, gs, "sample %d", i)
		wb := make([]byte, want.Schema().SampleBytes(ws))
		gb := make([]byte, len(wb))
		require.NoError(t, want.ReadSample(i, wb))
		require.NoError(t, got.ReadSample(i, gb))
		require.Equal(t, wb, gb, "sample %d", i)
	}
}

// writeSampleDirs writes d in the directory-per-sample form.
func writeSampleDirs(t testing.TB, d Dataset) string {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, ReadAll(d, func(i int, shapes [][]int, data []byte) error {
		sdir := filepath.Join(dir, sampleName(i))
		require.NoError(t, os.MkdirAll(sdir, 0o755))
		for k, ts := range d.Schema() {
			spec := Spec{DType: ts.DType, Shape: shapes[k]}
			writeNPY(t, filepath.Join(sdir, ts.Name+".npy"), spec, data[:spec.Bytes()])
			data = data[spec.Bytes():]
		}
		return nil
	}))
	return dir
}

func TestTensorForms(t *testing.T) {
	t.Parallel()
	forms := []struct {
		name  string
		write func(t *testing.T, d Dataset) string
	}{
		{name: "stacked", write: func(t *testing.T, d Dataset) string {
			dir := t.TempDir()
			require.NoError(t, WriteStacked(dir, d))
			return dir
		}},
		{name: "sample dirs", write: func(t *testing.T, d Dataset) string { return writeSampleDirs(t, d) }},
		{name: "compact v2", write: func(t *testing.T, d Dataset) string { return compactFile(t, d) }},
	}
	sets := map[string]*Memory{"bert-like": bertLike(t, 17), "volumes": volumes(t, 9)}
	for _, f := range forms {
		for name, src := range sets {
			t.Run(f.name+"/"+name, func(t *testing.T) {
				t.Parallel()
				d, err := Open(f.write(t, src), Options{})
				require.NoError(t, err)
				defer d.Close()
				sameSamples(t, src, d)
				if v, ok := d.(Verifier); ok {
					require.NoError(t, v.Verify())
				}
				// The arena keeps each sample's tensors where the layout
				// says.
				a := NewArena(d)
				require.NoError(t, a.Load(t.Context(), d, []uint64{3, 1, 3}))
				assert.Equal(t, []uint64{3, 1}, a.Loaded())
				shapes, _ := d.Shapes(3)
				layouts, n := d.Schema().Layout(shapes)
				assert.Equal(t, layouts, a.Layout(3))
				assert.Len(t, a.Sample(3), n)
				assert.Nil(t, a.Sample(0))
			})
		}
	}
}

func TestStackedWithLengths(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.NoError(t, WriteStacked(dir, bertLike(t, 5)))
	assert.FileExists(t, filepath.Join(dir, "lengths.npy"), "only the first axis varies: one lengths file")
	assert.NoFileExists(t, filepath.Join(dir, "input_ids.shape.npy"))
	d, err := OpenStacked(dir)
	require.NoError(t, err)
	defer d.Close()
	assert.Equal(t, "input_ids int32[-1], input_mask int32[-1], segment_ids int32[-1]", d.Schema().String())
}

// TestTensorFormErrors: a truncated, mis-typed or mis-shaped file is an
// error at Open (or, for a file that changed since, at the read), naming
// the file and the sample.
func TestTensorFormErrors(t *testing.T) {
	t.Parallel()
	stackedDir := func(t *testing.T) string {
		dir := t.TempDir()
		require.NoError(t, WriteStacked(dir, bertLike(t, 6)))
		return dir
	}
	tests := []struct {
		name string
		make func(t *testing.T) string
		// read: the error shows when the samples are read.
		read bool
		want []string
	}{
		{name: "stacked truncated", want: []string{"input_mask.npy is truncated", "sample 5 is the first missing"}, make: func(t *testing.T) string {
			dir := stackedDir(t)
			p := filepath.Join(dir, "input_mask.npy")
			b, _ := os.ReadFile(p)
			require.NoError(t, os.WriteFile(p, b[:len(b)-10], 0o644))
			return dir
		}},
		{name: "stacked sample counts differ", want: []string{"segment_ids.npy stacks 4 samples, input_ids.npy 6"}, make: func(t *testing.T) string {
			dir := stackedDir(t)
			writeNPY(t, filepath.Join(dir, "segment_ids.npy"), Spec{DType: Int32, Shape: []int{4, 15}}, make([]byte, 4*15*4))
			return dir
		}},
		{name: "stacked length past the padding", want: []string{"lengths.npy: sample 2 of input_ids.npy has shape [99], past the padded [15]"}, make: func(t *testing.T) string {
			dir := stackedDir(t)
			var b []byte
			for i := range 6 {
				l := uint32(3)
				if i == 2 {
					l = 99
				}
				b = binary.LittleEndian.AppendUint32(b, l)
			}
			writeNPY(t, filepath.Join(dir, "lengths.npy"), Spec{DType: Int32, Shape: []int{6}}, b)
			return dir
		}},
		{name: "stacked lengths of floats", want: []string{"lengths.npy holds float32, want integers"}, make: func(t *testing.T) string {
			dir := stackedDir(t)
			writeNPY(t, filepath.Join(dir, "lengths.npy"), Spec{DType: Float32, Shape: []int{6}}, make([]byte, 24))
			return dir
		}},
		{name: "sample dirs mis-typed", want: []string{"sample 3 (", "input_mask.npy holds int64, sample 0's is int32"}, make: func(t *testing.T) string {
			dir := writeSampleDirs(t, bertLike(t, 5))
			writeNPY(t, filepath.Join(dir, sampleName(3), "input_mask.npy"), Spec{DType: Int64, Shape: []int{2}}, make([]byte, 16))
			return dir
		}},
		{name: "sample dirs mis-shaped", want: []string{"sample 1 (", "segment_ids.npy has shape [2 2], sample 0's has 1 dimensions"}, make: func(t *testing.T) string {
			dir := writeSampleDirs(t, bertLike(t, 5))
			writeNPY(t, filepath.Join(dir, sampleName(1), "segment_ids.npy"), Spec{DType: Int32, Shape: []int{2, 2}}, make([]byte, 16))
			return dir
		}},
		{name: "sample dirs missing tensor", want: []string{"sample 4 (", "tensors [input_ids input_mask], sample 0 has [input_ids input_mask segment_ids]"}, make: func(t *testing.T) string {
			dir := writeSampleDirs(t, bertLike(t, 5))
			require.NoError(t, os.Remove(filepath.Join(dir, sampleName(4), "segment_ids.npy")))
			return dir
		}},
		{name: "sample dirs truncated since", read: true, want: []string{"sample 2 (", "input_ids.npy is truncated"}, make: func(t *testing.T) string {
			return writeSampleDirs(t, bertLike(t, 5))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := tt.make(t)
			d, err := Open(dir, Options{})
			if tt.read {
				require.NoError(t, err)
				defer d.Close()
				// The file shrinks after Open: the header still reads.
				p := filepath.Join(dir, sampleName(2), "input_ids.npy")
				b, _ := os.ReadFile(p)
				require.NoError(t, os.WriteFile(p, b[:len(b)-4], 0o644))
				err = ReadAll(d, nil)
			}
			require.Error(t, err)
			for _, w := range tt.want {
				assert.Contains(t, err.Error(), w)
			}
			assert.Contains(t, err.Error(), dir)
		})
	}
}

func TestCompactV2Corruption(t *testing.T) {
	t.Parallel()
	var good bytes.Buffer
	require.NoError(t, WriteCompact(&good, bertLike(t, 6)))
	require.Equal(t, byte(2), good.Bytes()[7], "version 2")
	tests := []struct {
		name   string
		mutate func([]byte) []byte
		err    string
	}{
		{name: "truncated", mutate: func(b []byte) []byte { return b[:len(b)-10] }, err: "truncated or appended"},
		{name: "header byte", mutate: func(b []byte) []byte { b[41] ^= 1; return b }, err: "header CRC"},
		{name: "shape table", mutate: func(b []byte) []byte {
			// The table follows the header: 24 + 3 tensors × 8+8+16.
			b[24+3*32+8] ^= 1
			return b
		}, err: "shape table CRC"},
		{name: "no tensors", mutate: func(b []byte) []byte { b[8], b[9] = 0, 0; return b }, err: "0 tensors"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := tt.mutate(bytes.Clone(good.Bytes()))
			_, err := openCompact("bad.mlph", bytes.NewReader(b), int64(len(b)))
			require.ErrorIs(t, err, ErrCorrupt)
			assert.Contains(t, err.Error(), tt.err)
		})
	}
}

// FuzzOpenCompact opens any bytes as a compact file (either version): no
// input makes it panic, and a file it accepts reads every sample within
// its bounds.
func FuzzOpenCompact(f *testing.F) {
	for _, d := range []Dataset{bertLike(f, 3), volumes(f, 2), memorySet(f, Spec{DType: Uint8, Shape: []int{2}}, 2, true)} {
		var b bytes.Buffer
		require.NoError(f, WriteCompact(&b, d))
		f.Add(b.Bytes())
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := openCompact("fuzz.mlph", bytes.NewReader(data), int64(len(data)))
		if err != nil {
			require.ErrorIs(t, err, ErrCorrupt)
			return
		}
		require.NoError(t, ReadAll(d, nil))
		_ = d.Verify()
	})
}

// FuzzStackedSideFile reads any bytes as the lengths.npy of a stacked data
// set: no input makes it panic, and an accepted one yields samples within
// the padding.
func FuzzStackedSideFile(f *testing.F) {
	src := t0Dir(f)
	good, err := os.ReadFile(filepath.Join(src, "lengths.npy"))
	require.NoError(f, err)
	f.Add(good)
	f.Fuzz(func(t *testing.T, lengths []byte) {
		dir := t.TempDir()
		for _, n := range []string{"input_ids.npy", "input_mask.npy", "segment_ids.npy"} {
			b, err := os.ReadFile(filepath.Join(src, n))
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(filepath.Join(dir, n), b, 0o644))
		}
		require.NoError(t, os.WriteFile(filepath.Join(dir, "lengths.npy"), lengths, 0o644))
		d, err := OpenStacked(dir)
		if err != nil {
			return
		}
		defer d.Close()
		require.NoError(t, ReadAll(d, nil))
	})
}

// t0Dir writes a small stacked data set once for the fuzz target.
func t0Dir(f *testing.F) string {
	dir := f.TempDir()
	require.NoError(f, WriteStacked(dir, bertLike(f, 4)))
	return dir
}
