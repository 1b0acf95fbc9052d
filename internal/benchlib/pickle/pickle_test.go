package pickle

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func loadFile(t *testing.T, path string) any {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	st, err := f.Stat()
	require.NoError(t, err)
	v, err := Load(f, st.Size())
	require.NoError(t, err)
	return v
}

// arrayBytes is an array's data: its bytes, or its span of the file.
func arrayBytes(t *testing.T, path string, a *Array) []byte {
	t.Helper()
	switch d := a.Data.(type) {
	case []byte:
		return d
	case Span:
		f, err := os.Open(path)
		require.NoError(t, err)
		defer f.Close()
		b := make([]byte, d.Length)
		_, err = f.ReadAt(b, d.Offset)
		require.NoError(t, err)
		return b
	}
	t.Fatalf("array data of %T", a.Data)
	return nil
}

// TestUnpickleNumpy reads KiTS19-like cases that Python's pickle wrote
// with numpy 1.24 (testdata, written by the commands in its README) in
// protocols 2, 4 and 5: the image's shape, dtype and values, the small
// ones read, the large ones left in the file as a span.
func TestUnpickleNumpy(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file  string
		shape []int
		lazy  bool
		at    func(i int) float32
	}{
		{file: "case_p2.pkl", shape: []int{1, 2, 3, 4}, at: func(i int) float32 { return float32(i) / 8 }},
		{file: "case_p4.pkl", shape: []int{1, 2, 3, 4}, at: func(i int) float32 { return float32(i) / 8 }},
		{file: "case_p5.pkl", shape: []int{1, 2, 3, 4}, at: func(i int) float32 { return float32(i) / 8 }},
		{file: "case_big_p4.pkl", shape: []int{1, 4, 16, 16}, lazy: true, at: func(i int) float32 { return float32(i % 7) }},
		{file: "case_big_p5.pkl", shape: []int{1, 4, 16, 16}, lazy: true, at: func(i int) float32 { return float32(i % 7) }},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join("testdata", tt.file)
			l, ok := loadFile(t, path).(*[]any)
			require.True(t, ok, "want a list")
			require.Len(t, *l, 2)
			img, ok := (*l)[0].(*Array)
			require.True(t, ok, "want [image, label] arrays")
			assert.Equal(t, tt.shape, img.Shape)
			assert.Equal(t, "<f4", img.DType.Descr())
			assert.False(t, img.Fortran)
			_, isSpan := img.Data.(Span)
			assert.Equal(t, tt.lazy, isSpan)
			n := 1
			for _, d := range img.Shape {
				n *= d
			}
			buf := arrayBytes(t, path, img)
			require.Len(t, buf, 4*n)
			for i := range n {
				require.Equal(t, tt.at(i), math.Float32frombits(binary.LittleEndian.Uint32(buf[4*i:])), "element %d", i) //nolint:testifylint // exact: the bytes read back
			}
		})
	}
}

func TestUnpickleDict(t *testing.T) {
	t.Parallel()
	d, ok := loadFile(t, filepath.Join("testdata", "files_p4.pkl")).(*Dict)
	require.True(t, ok, "want a dict")
	fl, _ := d.Get("file_list")
	assert.Equal(t, &[]any{"case_00000", "case_00001"}, fl)
	c, _ := d.Get("cases")
	c0, _ := c.(*Dict).Get("case_00000")
	mean, _ := c0.(*Dict).Get("mean")
	neg, _ := c0.(*Dict).Get("neg")
	assert.InDelta(t, 1.5, mean, 0)
	assert.Equal(t, int64(-3), neg)
}

// TestPicklerRoundTrip: what the Writer writes, Load reads; and Python's
// pickle with numpy reads it as the same arrays, where Debian's
// python3-numpy is installed.
func TestPicklerRoundTrip(t *testing.T) {
	t.Parallel()
	shape := []int{1, 3, 4, 5}
	img := make([]byte, 0, 240)
	lab := make([]byte, 60)
	for i := range lab {
		img = binary.LittleEndian.AppendUint32(img, math.Float32bits(float32(i)*0.25-3))
		lab[i] = byte(i % 3)
	}
	var p Writer
	p.Op(']', '(')
	p.Array("<f4", shape, img)
	p.Array("|u1", shape, lab)
	p.Op('e')
	var buf bytes.Buffer
	require.NoError(t, p.Encode(&buf))
	path := filepath.Join(t.TempDir(), "case_00007.pkl")
	require.NoError(t, os.WriteFile(path, buf.Bytes(), 0o644))
	l, ok := loadFile(t, path).(*[]any)
	require.True(t, ok, "want a list")
	got, ok := (*l)[0].(*Array)
	require.True(t, ok)
	assert.Equal(t, shape, got.Shape)
	assert.Equal(t, "<f4", got.DType.Descr())
	assert.Equal(t, img, arrayBytes(t, path, got))

	py := "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import numpy").Run(); err != nil {
		t.Skipf("no python3 with numpy to read the pickle back: %v", err)
	}
	out, err := exec.Command(py, "-c", `import pickle,sys
img, lab = pickle.load(open(sys.argv[1], "rb"))
print(img.dtype, img.shape, lab.dtype, float(img.sum()), int(lab.sum()), img.flags["C_CONTIGUOUS"])`, path).CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Equal(t, "float32 (1, 3, 4, 5) uint8 262.5 60 True\n", string(out))
}

// TestPersistentCall: a persistent id and a call Load does not make
// (torch.save's tensor rebuild) read back as what they name; Int64
// writes Python's shortest integer opcodes.
func TestPersistentCall(t *testing.T) {
	t.Parallel()
	var p Writer
	p.Global("torch._utils", "_rebuild_tensor_v2")
	p.Op('(')
	p.Op('(')
	p.Str("storage")
	p.Global("torch", "LongStorage")
	p.Op('t', 'Q')
	p.Int64(1 << 40)
	p.Int64(-1 << 40)
	p.Int64(-5)
	p.Op('t', 'R')
	var buf bytes.Buffer
	require.NoError(t, p.Encode(&buf))
	v, err := Load(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	require.NoError(t, err)
	fn, args, ok := Call(v)
	require.True(t, ok)
	assert.Equal(t, "torch._utils._rebuild_tensor_v2", fn)
	require.Len(t, args, 4)
	id, ok := args[0].(Persistent)
	require.True(t, ok)
	storage, _ := id.ID.(Tuple)
	require.Len(t, storage, 2)
	assert.Equal(t, "storage", storage[0])
	name, ok := Global(storage[1])
	assert.True(t, ok)
	assert.Equal(t, "torch.LongStorage", name)
	assert.Equal(t, []any{int64(1 << 40), int64(-1 << 40), int64(-5)}, []any(args[1:]))
	assert.Contains(t, buf.String(), "\x8a\x06\x00\x00\x00\x00\x00\x01", "2⁴⁰ as LONG1 of six bytes")
	_, _, ok = Call(int64(1))
	assert.False(t, ok)
	_, ok = Global("x")
	assert.False(t, ok)
}
