package rgat

import (
	"bytes"
	"encoding/binary"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/internal/accuracy"
	"github.com/mlperf-host/mlperf-host/internal/accuracy/accuracytest"
	"github.com/mlperf-host/mlperf-host/internal/benchlib/torchpt"
	"github.com/mlperf-host/mlperf-host/internal/dataset"
	"github.com/mlperf-host/mlperf-host/internal/dataset/datasettest"
)

var update = flag.Bool("update", false, "rewrite testdata/igbh")

// fixtureDir is the scorer's fixture, which tools/accuracyref/verify.sh
// also scores with the official accuracy_igbh.py.
var fixtureDir = filepath.Join("testdata", "igbh")

// scorerFixture is twelve validation papers of sixty; the last one's
// label, 300, is past what a uint8 holds.
func scorerFixture() Fixture {
	f := NewFixture(7, 60, 4, 12)
	f.Labels[f.ValIdx[11]] = 300
	return f
}

// scorerLogs are the fixture's logs: uint8 classes (the script's
// default) and int64 ones. Samples 0-5 and 11 are right, 6-9 wrong, 10
// not logged; sample 2's second response, wrong, is not read.
func scorerLogs(f Fixture) (u8, i64 []byte, err error) {
	var e8, e64 []accuracy.Entry
	for k, p := range f.ValIdx {
		c := int64(f.Labels[p])
		switch {
		case k == 10:
			continue
		case k >= 6 && k <= 9:
			c++
		}
		e8 = append(e8, accuracy.Entry{QSLIdx: uint64(k), Data: []byte{byte(c)}})
		e64 = append(e64, accuracy.Entry{QSLIdx: uint64(k), Data: binary.LittleEndian.AppendUint64(nil, uint64(c))})
		if k == 2 {
			e8 = append(e8, accuracy.Entry{QSLIdx: 2, Data: []byte{byte(c + 1)}})
			e64 = append(e64, accuracy.Entry{QSLIdx: 2, Data: binary.LittleEndian.AppendUint64(nil, uint64(c+1))})
		}
	}
	var a, b bytes.Buffer
	if err := accuracy.WriteLog(&a, e8); err != nil {
		return nil, nil, err
	}
	err = accuracy.WriteLog(&b, e64)
	return a.Bytes(), b.Bytes(), err
}

// TestFixtureFiles: testdata/igbh is what scorerFixture writes (go test
// -update rewrites it).
func TestFixtureFiles(t *testing.T) {
	t.Parallel()
	f := scorerFixture()
	tmp := t.TempDir()
	require.NoError(t, WriteIGBH(tmp, "tiny", f))
	u8, i64, err := scorerLogs(f)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(tmp, "mlperf_log_accuracy.json"), u8, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(tmp, "int64_log_accuracy.json"), i64, 0o644))
	if *update {
		require.NoError(t, os.RemoveAll(fixtureDir))
		require.NoError(t, os.CopyFS(fixtureDir, os.DirFS(tmp)))
	}
	n := 0
	require.NoError(t, filepath.WalkDir(tmp, func(p string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(tmp, p)
		want, err := os.ReadFile(p)
		require.NoError(t, err)
		got, err := os.ReadFile(filepath.Join(fixtureDir, rel))
		require.NoError(t, err, "rewrite testdata with go test -update")
		assert.Equal(t, want, got, "%s: rewrite it with go test -update", rel)
		n++
		return nil
	}))
	assert.Equal(t, 17, n) // 6 features, labels, 6 edge files, 2 splits, 2 logs
}

// TestScoreFixture: the lines are what the official accuracy_igbh.py
// writes on the fixture, run by tools/accuracyref/verify.sh with the
// torch stand-in tools/accuracyref/shims/torch. As uint8 the class 300
// wraps to 44 and misses, as the reference's own responses do.
func TestScoreFixture(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, log, dtype, want string
	}{
		{name: "uint8", log: "mlperf_log_accuracy.json", want: "accuracy=54.545%, good=6, total=11"},
		{name: "int64", log: "int64_log_accuracy.json", dtype: "int64", want: "accuracy=63.636%, good=7, total=11"},
		// An int64 response read as the default uint8: its low byte.
		{name: "int64 read as uint8", log: "int64_log_accuracy.json", want: "accuracy=54.545%, good=6, total=11"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f, err := os.Open(filepath.Join(fixtureDir, tt.log))
			require.NoError(t, err)
			defer f.Close()
			s, err := Scorer.Score(f, accuracy.Inputs{Truth: fixtureDir, Dtype: tt.dtype})
			require.NoError(t, err)
			assert.Equal(t, tt.want, s.Text())
		})
	}
}

func TestScoreErrors(t *testing.T) {
	t.Parallel()
	labels := []int64{3, 1}
	tests := []struct {
		name, dtype string
		entries     []accuracy.Entry
		err         string
	}{
		{name: "past the papers", entries: []accuracy.Entry{{QSLIdx: 2, Data: []byte{1}}}, err: "qsl_idx 2: the data set has 2 validation papers"},
		{name: "short", dtype: "int64", entries: []accuracy.Entry{{QSLIdx: 0, Data: []byte{1, 0}}}, err: "qsl_idx 0: a response of 2 bytes holds no int64"},
		{name: "empty", entries: []accuracy.Entry{}, err: "no responses"},
		{name: "dtype", dtype: "int8", entries: []accuracy.Entry{{QSLIdx: 0, Data: []byte{1}}}, err: `dtype "int8"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Score(accuracytest.Log(t, tt.entries), labels, tt.dtype)
			assert.ErrorContains(t, err, tt.err)
		})
	}
	res, err := Score(accuracytest.Log(t, []accuracy.Entry{{QSLIdx: 0, Data: accuracytest.F32(3.9)}, {QSLIdx: 1, Data: accuracytest.F32(0.5)}}), labels, "float32")
	require.NoError(t, err)
	assert.Equal(t, "accuracy=50.000%, good=1, total=2", res.Text(), "float classes truncate")
}

func TestOpenSeed(t *testing.T) {
	t.Parallel()
	f := scorerFixture()
	d, err := Reader.Open(fixtureDir, dataset.Options{})
	require.NoError(t, err)
	defer d.Close()
	assert.True(t, Reader.Is(fixtureDir, dataset.Options{}))
	assert.Equal(t, "seed int64[1]", d.Schema().String())
	assert.Contains(t, dataset.Form(d), "IGBH tiny")
	assert.Equal(t, filepath.Join(fixtureDir, "tiny", Processed), dataset.Truth(d))
	all := datasettest.ReadAll(t, d)
	require.Len(t, all, len(f.ValIdx))
	for i, p := range f.ValIdx {
		assert.Equal(t, p, int64(binary.LittleEndian.Uint64(all[i])))
	}
}

func i64s(b []byte) []int64 {
	v := make([]int64, len(b)/8)
	for i := range v {
		v[i] = int64(binary.LittleEndian.Uint64(b[8*i:]))
	}
	return v
}

func TestOpenNeighbourhood(t *testing.T) {
	t.Parallel()
	f := scorerFixture()
	d, err := Reader.Open(fixtureDir, dataset.Options{Features: FormNeighbourhood})
	require.NoError(t, err)
	defer d.Close()
	assert.Equal(t, "seed int64[1], node_type int64[-1], node_id int64[-1], features float32[-1 4], edges int64[-1 4]", d.Schema().String())
	all := datasettest.ReadAll(t, d)
	again, err := Open(fixtureDir, FormNeighbourhood)
	require.NoError(t, err)
	assert.Equal(t, all, datasettest.ReadAll(t, again), "a sample's neighbourhood is the same on every read")
	for i, p := range f.ValIdx {
		shapes, err := d.Shapes(i)
		require.NoError(t, err)
		n, e := shapes[1][0], shapes[4][0]
		b := all[i]
		types, ids := i64s(b[8:8+8*n]), i64s(b[8+8*n:8+16*n])
		feats := b[8+16*n : 8+16*n+16*n]
		edges := i64s(b[8+32*n:])
		require.Len(t, edges, 4*e)
		assert.Equal(t, []int64{0, p}, []int64{types[0], ids[0]}, "node 0 is the seed")
		assert.Equal(t, dataset.Float32Bytes(f.Feature(0, int(p))), feats[:16], "the seed's features")
		assert.Equal(t, int64(f.Labels[p]), FixtureClass(f.Feature(0, int(p))))
		perDst := map[[3]int64]int{}
		for k := 0; k < len(edges); k += 4 {
			hop, rel, src, dst := edges[k], edges[k+1], edges[k+2], edges[k+3]
			r := Relations[rel]
			assert.Equal(t, int64(r.Src), types[src], "edge %d's source type", k/4)
			assert.Equal(t, int64(r.Dst), types[dst], "edge %d's destination type", k/4)
			perDst[[3]int64{hop, rel, dst}]++
		}
		for k, c := range perDst {
			assert.LessOrEqual(t, c, Fanouts[k[0]], "hop %d relation %d", k[0], k[1])
		}
		assert.Positive(t, e)
	}
}

// TestSample: a paper cited by twenty gets fifteen of its twenty-one
// cites in-edges (its self-loop, which augment_edges adds twice, among
// them), each source sampled once.
func TestSample(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	f := Fixture{Nodes: []int{22, 1, 1, 1, 1, 1}, Features: 2, Labels: make([]float32, 22), Edges: map[string][][2]int64{},
		ValIdx: []int64{0}, TrainIdx: []int64{1}}
	for p := 1; p <= 20; p++ {
		f.Edges["paper__cites__paper"] = append(f.Edges["paper__cites__paper"], [2]int64{int64(p), 0})
	}
	f.Edges["paper__cites__paper"] = append(f.Edges["paper__cites__paper"], [2]int64{0, 0}) // dropped
	f.Edges["paper__written_by__author"] = [][2]int64{{0, 0}}
	require.NoError(t, WriteIGBH(dir, "tiny", f))
	dd, err := Open(dir, FormNeighbourhood)
	require.NoError(t, err)
	h := dd.(*igbh).neighbourhood(0)
	hop0 := map[int64]int{}
	for k := 0; k < len(h.Edges); k += 4 {
		if h.Edges[k] == 0 {
			hop0[h.Edges[k+1]]++
		}
	}
	assert.Equal(t, map[int64]int{0: 15, 6: 1}, hop0, "cites 15 of 21, rev_written_by 1 of 1")
	seen := map[[2]int64]bool{}
	for k := range h.Types {
		key := [2]int64{h.Types[k], h.IDs[k]}
		assert.False(t, seen[key], "node %v twice", key)
		seen[key] = true
	}
}

func TestOpenErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		edit  func(f *Fixture)
		after func(t *testing.T, processed string)
		form  string
		is    error
		err   string
	}{
		{name: "val_idx past the papers", edit: func(f *Fixture) { f.ValIdx[3] = 60 }, is: dataset.ErrCorrupt,
			err: "val_idx.pt: corrupt data set file: entry 3 is paper 60, the labels hold 60 papers"},
		{name: "edge past the authors", form: FormNeighbourhood, is: dataset.ErrCorrupt,
			edit: func(f *Fixture) { f.Edges["paper__written_by__author"][5] = [2]int64{1, 500} },
			err:  "paper__written_by__author/edge_index.npy: corrupt data set file: row 5 is (1, 500), paper__written_by__author has 60 and 120 nodes"},
		{name: "no labels", is: dataset.ErrNotFound, err: "paper/node_label_2K.npy: not found",
			after: func(t *testing.T, p string) { require.NoError(t, os.Remove(filepath.Join(p, "paper", Labels))) }},
		{name: "not a torch file", is: dataset.ErrCorrupt, err: "val_idx.pt: corrupt data set file: not a torch.save archive of one tensor: not a zip archive",
			after: func(t *testing.T, p string) {
				require.NoError(t, os.WriteFile(filepath.Join(p, ValIdx), []byte("x"), 0o644))
			}},
		{name: "a float index", is: dataset.ErrCorrupt, err: "val_idx.pt: corrupt data set file: a tensor of float32 of size [2], want a 1-D integer tensor",
			after: func(t *testing.T, p string) { writeIndex(t, p, "FloatStorage", []int{2}, make([]byte, 8)) }},
		{name: "a 2-D index", is: dataset.ErrCorrupt, err: "val_idx.pt: corrupt data set file: a tensor of int64 of size [1 2], want a 1-D integer tensor",
			after: func(t *testing.T, p string) { writeIndex(t, p, "LongStorage", []int{1, 2}, make([]byte, 16)) }},
		{name: "a short storage", is: dataset.ErrCorrupt, err: "val_idx.pt: corrupt data set file: not a torch.save archive of one tensor: entry val_idx/data/0: 8 bytes for 2 elements of int64",
			after: func(t *testing.T, p string) { writeIndex(t, p, "LongStorage", []int{2}, make([]byte, 8)) }},
		// split_seeds.py's tensors are int64; an int32 one reads the same.
		{name: "an int32 index past the papers", is: dataset.ErrCorrupt, err: "val_idx.pt: corrupt data set file: entry 1 is paper -1",
			after: func(t *testing.T, p string) {
				writeIndex(t, p, "IntStorage", []int{2}, []byte{1, 0, 0, 0, 0xff, 0xff, 0xff, 0xff})
			}},
		{name: "features of another width", form: FormNeighbourhood, is: dataset.ErrMismatch, err: "author/node_feat.npy: dtype or shape mismatch: 3 features, paper/node_feat.npy has 4",
			after: func(t *testing.T, p string) {
				spec := dataset.Spec{DType: dataset.Float32, Shape: []int{120, 3}}
				require.NoError(t, dataset.WriteNPYFile(filepath.Join(p, "author", NodeFeat), spec, make([]byte, 4*360)))
			}},
		{name: "edges of three columns", form: FormNeighbourhood, is: dataset.ErrMismatch, err: "paper__topic__fos/edge_index.npy: dtype or shape mismatch: shape [2 3]",
			after: func(t *testing.T, p string) {
				spec := dataset.Spec{DType: dataset.Int64, Shape: []int{2, 3}}
				require.NoError(t, dataset.WriteNPYFile(filepath.Join(p, "paper__topic__fos", EdgeIndex), spec, make([]byte, 48)))
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			f := NewFixture(7, 60, 4, 12)
			if tt.edit != nil {
				tt.edit(&f)
			}
			require.NoError(t, WriteIGBH(dir, "tiny", f))
			if tt.after != nil {
				tt.after(t, filepath.Join(dir, "tiny", Processed))
			}
			_, err := Open(dir, tt.form)
			require.ErrorIs(t, err, tt.is)
			assert.ErrorContains(t, err, tt.err)
		})
	}
	_, err := Open(t.TempDir(), "")
	require.ErrorIs(t, err, dataset.ErrNotFound)
	_, err = Open(fixtureDir, "blocks")
	assert.ErrorContains(t, err, `sample form "blocks"`)
}

// writeIndex replaces val_idx.pt with a tensor of storage class class.
func writeIndex(t *testing.T, processed, class string, shape []int, data []byte) {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, torchpt.WriteStorage(&b, "val_idx", class, shape, data))
	require.NoError(t, os.WriteFile(filepath.Join(processed, ValIdx), b.Bytes(), 0o644))
}

// TestRawFull: the full size's paper labels are a raw float32 file, as
// the reference memory-maps it; one of another size is an error.
func TestRawFull(t *testing.T) {
	t.Parallel()
	d := Dir{Processed: filepath.Join(t.TempDir(), "full", Processed), Size: "full"}
	rows, cols := d.rawShape(0, 1)
	assert.Equal(t, []int64{269346174, 1}, []int64{rows, cols})
	rows, _ = d.rawShape(2, FeatureDim)
	assert.Zero(t, rows, "institute's features are a .npy file")
	p := filepath.Join(t.TempDir(), "labels")
	require.NoError(t, os.WriteFile(p, make([]byte, 12), 0o644))
	a, err := openArray(p, 3, 1)
	require.NoError(t, err)
	assert.Equal(t, []int64{3}, a.shape)
	_, err = openArray(p, 4, 1)
	require.ErrorIs(t, err, dataset.ErrCorrupt)
	assert.ErrorContains(t, err, "a raw float32 file of 12 bytes, the reference maps 4×1 (16 bytes)")
}

// FuzzEdgeIndex: any paper__cites__paper/edge_index.npy reads as a graph
// whose in-edges name nodes that exist, or fails with an error.
func FuzzEdgeIndex(f *testing.F) {
	var seed bytes.Buffer
	require.NoError(f, dataset.WriteNPY(&seed, dataset.Spec{DType: dataset.Int64, Shape: []int{2, 2}}, int64Bytes([]int64{0, 1, 1, 1})))
	f.Add(seed.Bytes())
	f.Add([]byte("\x93NUMPY\x01\x00"))
	nodes := []int64{2, 1, 1, 1, 1, 1}
	f.Fuzz(func(t *testing.T, b []byte) {
		dir := t.TempDir()
		for _, file := range edgeFiles() {
			data := int64Bytes([]int64{0, 0})
			require.NoError(t, writeNPY(filepath.Join(dir, file, EdgeIndex), dataset.Spec{DType: dataset.Int64, Shape: []int{1, 2}}, data))
		}
		require.NoError(t, os.WriteFile(filepath.Join(dir, "paper__cites__paper", EdgeIndex), b, 0o644))
		g, err := ReadGraph(dir, nodes)
		if err != nil {
			return
		}
		h := g.Sample(1, 0)
		for k := range h.Types {
			assert.Less(t, h.IDs[k], nodes[h.Types[k]])
		}
	})
}

// TestTruncatedFile: a .npy file shorter than its header says is an
// error naming it, before anything is read.
func TestTruncatedFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.NoError(t, WriteIGBH(dir, "tiny", NewFixture(7, 60, 4, 12)))
	p := filepath.Join(dir, "tiny", Processed, "paper__venue__conference", EdgeIndex)
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(p, b[:len(b)-8], 0o644))
	_, err = Open(dir, FormNeighbourhood)
	require.ErrorIs(t, err, dataset.ErrCorrupt)
	assert.ErrorContains(t, err, "paper__venue__conference/edge_index.npy: corrupt data set file: 2872 bytes of data, its header's int64[180 2] needs 2880")
}
