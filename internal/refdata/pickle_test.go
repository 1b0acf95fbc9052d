package refdata

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

	"github.com/mlperf-host/mlperf-host/internal/dataset"
)

func unpickleBytes(t *testing.T, b []byte) any {
	t.Helper()
	v, err := unpickle(bytes.NewReader(b), int64(len(b)))
	require.NoError(t, err)
	return v
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
			shape, dt, data, err := readKiTSCase(path)
			require.NoError(t, err)
			assert.Equal(t, tt.shape, shape)
			assert.Equal(t, dataset.Float32, dt)
			_, isSpan := data.(span)
			assert.Equal(t, tt.lazy, isSpan)
			n := 1
			for _, d := range shape {
				n *= d
			}
			buf := make([]byte, 4*n)
			require.NoError(t, readData(path, data, buf))
			for i := range n {
				require.Equal(t, tt.at(i), math.Float32frombits(binary.LittleEndian.Uint32(buf[4*i:])), "element %d", i) //nolint:testifylint // exact: the bytes read back
			}
		})
	}
}

func TestUnpickleDict(t *testing.T) {
	t.Parallel()
	cases, err := readKiTSFileList(filepath.Join("testdata", "files_p4.pkl"))
	require.NoError(t, err)
	assert.Equal(t, []string{"case_00000", "case_00001"}, cases)
	b, err := os.ReadFile(filepath.Join("testdata", "files_p4.pkl"))
	require.NoError(t, err)
	d := unpickleBytes(t, b).(*pyDict)
	c, _ := d.get("cases")
	c0, _ := c.(*pyDict).get("case_00000")
	mean, _ := c0.(*pyDict).get("mean")
	neg, _ := c0.(*pyDict).get("neg")
	assert.InDelta(t, 1.5, mean, 0)
	assert.Equal(t, int64(-3), neg)
}

// TestPicklerRoundTrip: what the fixtures write, the reader reads; and
// Python's pickle with numpy reads it as the same arrays, where Debian's
// python3-numpy is installed.
func TestPicklerRoundTrip(t *testing.T) {
	t.Parallel()
	shape := []int{1, 3, 4, 5}
	img := make([]float32, 60)
	lab := make([]byte, 60)
	for i := range img {
		img[i], lab[i] = float32(i)*0.25-3, byte(i%3)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "case_00007.pkl")
	f, err := os.Create(path)
	require.NoError(t, err)
	require.NoError(t, writeKiTSCase(f, shape, img, lab))
	require.NoError(t, f.Close())
	got, dt, data, err := readKiTSCase(path)
	require.NoError(t, err)
	assert.Equal(t, shape, got)
	assert.Equal(t, dataset.Float32, dt)
	buf := make([]byte, 240)
	require.NoError(t, readData(path, data, buf))
	for i, v := range img {
		assert.Equal(t, v, math.Float32frombits(binary.LittleEndian.Uint32(buf[4*i:]))) //nolint:testifylint // exact: the bytes read back
	}

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
