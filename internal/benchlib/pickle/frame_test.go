package pickle

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReadFrame reads DataFrames that pandas 1.5 pickled in protocols
// 2, 4 and 5 (testdata/README.md): object, int64, float64 and bool
// blocks, token lists as Python lists and as numpy arrays (one large
// enough to be left in the file), a RangeIndex and an integer index.
func TestReadFrame(t *testing.T) {
	t.Parallel()
	for _, file := range []string{"frame_p2.pkl", "frame_p4.pkl", "frame_p5.pkl"} {
		t.Run(file, func(t *testing.T) {
			t.Parallel()
			f, err := ReadFrameFile(filepath.Join("testdata", file))
			require.NoError(t, err)
			assert.Equal(t, []string{"dataset", "tok_input", "tok_input_len", "score", "ids", "ok", "output"}, f.Columns)
			assert.Equal(t, 3, f.Len())
			assert.Nil(t, f.Index)
			col := func(name string) []any {
				c, ok := f.Column(name)
				require.True(t, ok, name)
				return c
			}
			assert.Equal(t, []any{"OpenOrca", "GSM8K", "MBXP"}, col("dataset"))
			assert.Equal(t, []any{int64(3), int64(2), int64(1)}, col("tok_input_len"))
			assert.Equal(t, []any{0.5, 1.25, -2.0}, col("score"))
			assert.Equal(t, []any{true, false, true}, col("ok"))
			assert.Equal(t, []any{"a", "b\u00e9", ""}, col("output"))
			toks := col("tok_input")
			ids, err := Ints(toks[1], nil)
			require.NoError(t, err)
			assert.Equal(t, []int64{4, 5}, ids)
			arrs := col("ids")
			big, err := Ints(arrs[1], nil)
			require.NoError(t, err)
			require.Len(t, big, 600)
			assert.Equal(t, int64(599), big[599])
			small, err := Ints(arrs[2], nil)
			require.NoError(t, err)
			assert.Equal(t, []int64{7}, small)
			_, ok := f.Column("missing")
			assert.False(t, ok)
		})
	}
	f, err := ReadFrameFile(filepath.Join("testdata", "frame_index.pkl"))
	require.NoError(t, err)
	assert.Equal(t, []int64{10, 11, 12}, f.Index)
}

// TestReadFrameNotAFrame: a pickle of something else, and a truncated
// frame, are errors naming the file.
func TestReadFrameNotAFrame(t *testing.T) {
	t.Parallel()
	_, err := ReadFrameFile(filepath.Join("testdata", "files_p4.pkl"))
	require.ErrorContains(t, err, "files_p4.pkl: pandas DataFrame: the pickle holds a dict")
	b, err := os.ReadFile(filepath.Join("testdata", "frame_p4.pkl"))
	require.NoError(t, err)
	cut := filepath.Join(t.TempDir(), "cut.pkl")
	require.NoError(t, os.WriteFile(cut, b[:len(b)/2], 0o644))
	_, err = ReadFrameFile(cut)
	require.ErrorContains(t, err, "cut.pkl: not a pickle unpickle reads")
}

// TestWriteFrame: what Writer.Frame writes, ReadFrame reads; and pandas
// reads it as the same frame, where Debian's python3-pandas is installed.
func TestWriteFrame(t *testing.T) {
	t.Parallel()
	var p Writer
	require.NoError(t, p.Frame([]Column{
		{Name: "input", Cells: []any{"q0", "q\u00e91"}},
		{Name: "tok_input", Cells: []any{[]int32{1, 2, 70000}, []int64{-5, 1 << 40}}},
		{Name: "tok_input_len", Cells: []any{int64(3), int64(2)}},
		{Name: "weight", Cells: []any{0.25, 3.0}},
		{Name: "mixed", Cells: []any{"x", int64(1) << 35}},
		{Name: "missing", Cells: []any{nil, "y"}},
		{Name: "ids", Cells: []any{Int64Array([]int64{7, -1 << 40}), nil}},
	}))
	var buf bytes.Buffer
	require.NoError(t, p.Encode(&buf))
	path := filepath.Join(t.TempDir(), "frame.pkl")
	require.NoError(t, os.WriteFile(path, buf.Bytes(), 0o644))
	f, err := ReadFrameFile(path)
	require.NoError(t, err)
	assert.Equal(t, []string{"input", "tok_input", "tok_input_len", "weight", "mixed", "missing", "ids"}, f.Columns)
	c, _ := f.Column("missing")
	assert.Equal(t, []any{nil, "y"}, c)
	c, _ = f.Column("tok_input")
	ids, err := Ints(c[1], nil)
	require.NoError(t, err)
	assert.Equal(t, []int64{-5, 1 << 40}, ids)
	c, _ = f.Column("mixed")
	assert.Equal(t, []any{"x", int64(1) << 35}, c)
	c, _ = f.Column("weight")
	assert.Equal(t, []any{0.25, 3.0}, c)
	c, _ = f.Column("ids")
	ids, err = Ints(c[0], nil)
	require.NoError(t, err)
	assert.Equal(t, []int64{7, -1 << 40}, ids)
	assert.Nil(t, c[1])

	require.Error(t, (&Writer{}).Frame([]Column{{Name: "a", Cells: []any{"x"}}, {Name: "b"}}))
	require.ErrorContains(t, (&Writer{}).Frame([]Column{{Name: "a", Cells: []any{"x", 1.5}}}), `column "a": cell 1`)
	require.ErrorContains(t, (&Writer{}).Frame([]Column{{Name: "a", Cells: []any{&Array{Data: Span{}}}}}), `column "a": cell 0: a numpy array of pickle.Span data`)

	py := "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import pandas").Run(); err != nil {
		t.Skipf("no python3 with pandas to read the pickle back: %v", err)
	}
	out, err := exec.Command(py, "-c", `import sys, pandas as pd
d = pd.read_pickle(sys.argv[1])
print(list(d.columns), list(d.index), d.dtypes.astype(str).tolist())
print(d["tok_input"].tolist(), d["input"].tolist(), d["tok_input_len"].sum(), d["weight"].sum(), d["mixed"].tolist(), d["missing"].tolist())
print(d["ids"][0].dtype, d["ids"][0].tolist(), d["ids"][1])`, path).CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Equal(t, `['input', 'tok_input', 'tok_input_len', 'weight', 'mixed', 'missing', 'ids'] [0, 1] ['object', 'object', 'int64', 'float64', 'object', 'object', 'object']
[[1, 2, 70000], [-5, 1099511627776]] ['q0', 'qé1'] 5 3.25 ['x', 34359738368] [None, 'y']
int64 [7, -1099511627776] None
`, string(out))
}

// FuzzReadFrame: ReadFrame returns a frame or an error, never panics,
// on any bytes; the seeds are the pandas-written frames.
func FuzzReadFrame(f *testing.F) {
	for _, file := range []string{"frame_p2.pkl", "frame_p4.pkl", "frame_p5.pkl", "frame_index.pkl"} {
		b, err := os.ReadFile(filepath.Join("testdata", file))
		require.NoError(f, err)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		fr, err := ReadFrame(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			return
		}
		for _, c := range fr.Columns {
			cells, ok := fr.Column(c)
			if ok && len(cells) != fr.Len() {
				t.Fatalf("column %q has %d cells of %d rows", c, len(cells), fr.Len())
			}
		}
	})
}

// BenchmarkReadFrame reads a frame of 2000 prompts of 500 token ids and
// their texts, as OpenOrca's pickle holds them.
func BenchmarkReadFrame(b *testing.B) {
	n := 2000
	toks, texts := make([]any, n), make([]any, n)
	for i := range n {
		t := make([]int32, 500)
		for k := range t {
			t[k] = int32(i*7+k) % 32000
		}
		toks[i], texts[i] = t, strings.Repeat("word ", 200)
	}
	var p Writer
	require.NoError(b, p.Frame([]Column{{Name: "tok_input", Cells: toks}, {Name: "output", Cells: texts}}))
	var buf bytes.Buffer
	require.NoError(b, p.Encode(&buf))
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ReadFrame(bytes.NewReader(data), int64(len(data))); err != nil {
			b.Fatal(err)
		}
	}
}

// TestIsFrameFile: the columns asked of a file are those of its latest
// contents; a file that is no frame has none.
func TestIsFrameFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "data.pkl")
	require.NoError(t, WriteFrameFile(path, []Column{{Name: "tok_input", Cells: []any{[]int32{1}}}, {Name: "output", Cells: []any{"a"}}}))
	assert.True(t, IsFrameFile(path, "tok_input", "output"))
	assert.False(t, IsFrameFile(path, "tok_input", "metric"))
	require.NoError(t, WriteFrameFile(path, []Column{{Name: "tok_input", Cells: []any{[]int32{1, 2}}}, {Name: "metric", Cells: []any{"rouge"}}}))
	assert.True(t, IsFrameFile(path, "tok_input", "metric"))
	assert.False(t, IsFrameFile(path, "output"))
	assert.False(t, IsFrameFile(filepath.Join("testdata", "files_p4.pkl")))
	assert.False(t, IsFrameFile(filepath.Join(t.TempDir(), "missing.pkl")))
}
