package onnxpb

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// externalModel returns sampleModel with its raw initializers moved to
// "model.onnx_data" in a new directory, that directory and the model's
// encoding.
func externalModel(t *testing.T) (dir string, model []byte) {
	t.Helper()
	m := sampleModel()
	data := Externalize(m, "model.onnx_data", 0)
	dir = t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "model.onnx_data"), data, 0o600))
	return dir, Encode(m)
}

func TestExternalRoundTrip(t *testing.T) {
	t.Parallel()
	dir, model := externalModel(t)
	m, err := Decode(model)
	require.NoError(t, err)
	w := &m.Graph.Initializers[0]
	require.True(t, w.External)
	assert.Equal(t, ExternalData{Location: "model.onnx_data", Length: 36, HasLength: true}, w.ExternalData)
	assert.Equal(t, ExternalData{Location: "model.onnx_data", Offset: 36, Length: 32, HasLength: true}, m.Graph.Initializers[2].ExternalData)
	assert.False(t, m.Graph.Initializers[1].External, "typed data stays inline")

	d, err := OpenExternalDir(dir)
	require.NoError(t, err)
	defer d.Close()
	require.NoError(t, d.Read(w))
	got, err := w.Float32s()
	require.NoError(t, err)
	assert.Equal(t, []float32{1, 2, 3, 4, 5, 6, 7, 8, 9}, got)

	ext, err := ExternalTensors(model)
	require.NoError(t, err)
	names := []string{}
	for _, e := range ext {
		names = append(names, e.Name)
		require.NoError(t, d.Check(&e))
	}
	assert.Equal(t, []string{"w", "fw"}, names)
}

// TestExternalTensorsSubgraphs checks that tensors in attributes and in
// subgraphs (an If's branches) are found.
func TestExternalTensorsSubgraphs(t *testing.T) {
	t.Parallel()
	ext := func(name string) Tensor {
		return Tensor{Name: name, DataType: Float, Dims: []int64{1}, External: true, ExternalData: ExternalData{Location: "d"}}
	}
	branch := Graph{Initializers: []Tensor{ext("in-branch")}}
	m := sampleModel()
	m.Graph.Nodes = append(m.Graph.Nodes, Node{OpType: "Constant", Outputs: []string{"k"}, Attrs: []Attr{TensorAttr("value", ext("const"))}})
	b := Encode(m)
	// Append an If node whose then_branch holds an external initializer:
	// Encode does not write graphs, so build its fields by hand.
	g := appendMessage(nil, graphInitializer, EncodeTensor(&branch.Initializers[0]))
	attr := appendStringField(nil, attrName, "then_branch")
	attr = appendMessage(attr, attrG, g)
	node := appendStringField(nil, nodeOpType, "If")
	node = appendMessage(node, nodeAttribute, attr)
	b = appendMessage(b, modelGraph, appendMessage(nil, graphNode, node))

	got, err := ExternalTensors(b)
	require.NoError(t, err)
	names := []string{}
	for _, e := range got {
		names = append(names, e.Name)
	}
	assert.Equal(t, []string{"const", "in-branch"}, names)
}

func TestExternalErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "d"), make([]byte, 8), 0o600))
	require.NoError(t, os.Mkdir(filepath.Join(dir, "sub"), 0o700))
	outside := filepath.Join(t.TempDir(), "secret")
	require.NoError(t, os.WriteFile(outside, make([]byte, 8), 0o600))
	// wazero's WASI (the wasip1 build of these tests) refuses symlinks.
	symlinkErr := os.Symlink(outside, filepath.Join(dir, "link"))
	if runtime.GOOS != "wasip1" {
		require.NoError(t, symlinkErr)
	}

	tensor := func(e ExternalData) Tensor {
		return Tensor{Name: "w", DataType: Float, Dims: []int64{2}, External: true, ExternalData: e}
	}
	tests := []struct {
		name     string
		e        ExternalData
		dir      string
		mentions string
	}{
		{name: "empty location", e: ExternalData{}, mentions: "no location"},
		{name: "absolute", e: ExternalData{Location: "/etc/passwd"}, mentions: "absolute"},
		{name: "dot dot", e: ExternalData{Location: "../d"}, mentions: "leaves the model's directory"},
		{name: "inner dot dot", e: ExternalData{Location: "sub/../../d"}, mentions: "leaves the model's directory"},
		{name: "backslash dot dot", e: ExternalData{Location: `..\d`}, mentions: "leaves the model's directory"},
		{name: "nul", e: ExternalData{Location: "d\x00x"}, mentions: "NUL"},
		{name: "symlink out", e: ExternalData{Location: "link"}, mentions: `file "link"`},
		{name: "missing", e: ExternalData{Location: "nope"}, mentions: `tensor "w": file "nope"`},
		{name: "directory", e: ExternalData{Location: "sub"}, mentions: "not a regular file"},
		{name: "short", e: ExternalData{Location: "d", Offset: 4}, mentions: "short file"},
		{name: "offset past end", e: ExternalData{Location: "d", Offset: 1 << 62}, mentions: "short file"},
		{name: "length mismatch", e: ExternalData{Location: "d", Length: 4, HasLength: true}, mentions: "takes 8 bytes"},
		{name: "no directory", e: ExternalData{Location: "d"}, dir: "-", mentions: "came as bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if tt.e.Location == "link" && symlinkErr != nil {
				t.Skipf("no symlink to follow on %s: %v", runtime.GOOS, symlinkErr)
			}
			at := dir
			if tt.dir == "-" {
				at = ""
			}
			d, err := OpenExternalDir(at)
			require.NoError(t, err)
			defer d.Close()
			ten := tensor(tt.e)
			err = d.Read(&ten)
			require.ErrorIs(t, err, ErrExternalData)
			assert.Contains(t, err.Error(), tt.mentions)
			assert.Contains(t, err.Error(), `tensor "w"`)
			assert.True(t, ten.External, "a failed read leaves the tensor external")
		})
	}
	t.Run("ok", func(t *testing.T) {
		t.Parallel()
		d, err := OpenExternalDir(dir)
		require.NoError(t, err)
		defer d.Close()
		ten := tensor(ExternalData{Location: "d", Length: 8, HasLength: true})
		require.NoError(t, d.Read(&ten))
		assert.Len(t, ten.Raw, 8)
	})
}

func TestExternalEntryMalformed(t *testing.T) {
	t.Parallel()
	for _, v := range []string{"-1", "x", "99999999999999999999", ""} {
		var m []byte
		m = appendStringField(m, entryKey, "offset")
		m = appendStringField(m, entryValue, v)
		b := appendMessage(nil, tensorExternalData, m)
		_, err := DecodeTensor(b)
		require.ErrorIs(t, err, ErrMalformed, "offset %q", v)
	}
}

// FuzzExternalData checks that no external_data entries make decoding,
// [ExternalTensors] or [ExternalDir.Read] panic, and that a read never
// returns data other than the tensor's size or escapes the directory.
func FuzzExternalData(f *testing.F) {
	dir := f.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "d"), make([]byte, 64), 0o600); err != nil {
		f.Fatal(err)
	}
	seed := func(e ExternalData, dims ...int64) []byte {
		ten := Tensor{Name: "w", DataType: Float, Dims: dims, External: true, ExternalData: e}
		return EncodeTensor(&ten)
	}
	f.Add(seed(ExternalData{Location: "d", Offset: 8, Length: 16, HasLength: true}, 4))
	f.Add(seed(ExternalData{Location: "../d"}, 2))
	f.Add(seed(ExternalData{Location: "d", Offset: 60}, 2))
	d, err := OpenExternalDir(dir)
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { d.Close() })
	f.Fuzz(func(t *testing.T, b []byte) {
		model := appendMessage(nil, modelGraph, appendMessage(nil, graphInitializer, b))
		_, _ = ExternalTensors(model)
		ten, err := DecodeTensor(b)
		if err != nil || !ten.External {
			return
		}
		if err := d.Read(ten); err != nil {
			return
		}
		n, err := ten.Elements()
		if err != nil {
			t.Fatalf("read a tensor whose shape has no size: %v", err)
		}
		if want, _ := byteSize(ten.DataType, int64(n)); int64(len(ten.Raw)) != want || len(ten.Raw) > 64 {
			t.Fatalf("read %d bytes for %v of %v", len(ten.Raw), ten.Dims, ten.DataType)
		}
	})
}
