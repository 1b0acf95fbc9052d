package main

import (
	bin "encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/examples/echo"
	"github.com/mlperf-host/mlperf-host/internal/accuracy"
	"github.com/mlperf-host/mlperf-host/internal/dataset"
	"github.com/mlperf-host/mlperf-host/internal/exitcode"
)

// bertLikeSet writes a data set of n samples of three int32 tensors of one
// length per sample (input_ids, input_mask, segment_ids: BERT's) in the
// stacked form into dir: three [n, longest] .npy files and lengths.npy.
func bertLikeSet(t *testing.T, dir string, n int) dataset.Dataset {
	t.Helper()
	schema := dataset.Schema{
		{Name: "input_ids", DType: dataset.Int32, Shape: []int{dataset.Varies}},
		{Name: "input_mask", DType: dataset.Int32, Shape: []int{dataset.Varies}},
		{Name: "segment_ids", DType: dataset.Int32, Shape: []int{dataset.Varies}},
	}
	var samples []dataset.MemorySample
	for i := range n {
		l := 1 + (i*7)%24
		var data []byte
		for k := range 3 {
			for j := range l {
				data = bin.LittleEndian.AppendUint32(data, uint32(i<<16|k<<8|j))
			}
		}
		samples = append(samples, dataset.MemorySample{Shapes: [][]int{{l}, {l}, {l}}, Data: data})
	}
	m, err := dataset.NewTensorMemory("bert-like", schema, samples, nil)
	require.NoError(t, err)
	require.NoError(t, dataset.WriteStacked(dir, m))
	return m
}

// TestStackedTensorsReachThePlugin: an accuracy run of the echo plugin over
// a 3-tensor, variable-length data set in the stacked form; the plugin
// echoes the tensors it read by name, so the accuracy log shows that every
// tensor of every sample reached it, with its shape and bytes.
func TestStackedTensorsReachThePlugin(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	plugins := installEcho(t)
	set := filepath.Join(dir, "squad-like")
	const n = 40
	src := bertLikeSet(t, set, n)
	model := filepath.Join(dir, "model.bin")
	require.NoError(t, os.WriteFile(model, []byte("any"), 0o644))

	r := mlperfHost(t, dir, "dataset", "info", set)
	require.Equal(t, exitcode.OK, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	assert.Contains(t, r.stdout, "samples  40\n")
	assert.Regexp(t, `sample   3 tensors, 12 to 288 bytes\n`, r.stdout)
	assert.Regexp(t, `tensor   input_ids\s+int32\s+\[1\] to \[24\]\n`, r.stdout)
	assert.Regexp(t, `tensor   segment_ids\s+int32\s+\[1\] to \[24\]\n`, r.stdout)

	// The compact form holds the same tensors (format version 2).
	r = mlperfHost(t, dir, "dataset", "convert", set, "set.mlph")
	require.Equal(t, exitcode.OK, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	assert.Contains(t, r.stdout, "40 samples of input_ids int32[-1], input_mask int32[-1], segment_ids int32[-1]")
	r = mlperfHost(t, dir, "dataset", "info", "set.mlph")
	require.Equal(t, exitcode.OK, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	assert.Regexp(t, `tensor   input_mask\s+int32\s+\[1\] to \[24\]\n`, r.stdout)

	r = mlperfHost(t, dir, append([]string{"run", "--plugin", "echo", "--plugin-dirs", plugins, "--benchmark", "bert-99",
		"--dataset", set, "--model", model, "--mode", "accuracy", "--scenario", "Offline", "--out", "logs"}, fast(t, dir)...)...)
	require.Equal(t, exitcode.OK, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)

	f, err := os.Open(filepath.Join(dir, "logs", "mlperf_log_accuracy.json"))
	require.NoError(t, err)
	defer f.Close()
	seen := map[uint64]bool{}
	require.NoError(t, accuracy.ReadLog(f, func(e accuracy.Entry) error {
		got, err := echo.DecodeTensors(e.Data)
		require.NoError(t, err, "sample %d", e.QSLIdx)
		shapes, err := src.Shapes(int(e.QSLIdx))
		require.NoError(t, err)
		data := make([]byte, src.Schema().SampleBytes(shapes))
		require.NoError(t, src.ReadSample(int(e.QSLIdx), data))
		layouts, _ := src.Schema().Layout(shapes)
		require.Len(t, got, 3, "sample %d", e.QSLIdx)
		for k, ts := range src.Schema() {
			assert.Equal(t, ts.Name, got[k].Name, "sample %d", e.QSLIdx)
			assert.Equal(t, ts.DType.String(), string(got[k].DType), "sample %d", e.QSLIdx)
			assert.Equal(t, shapes[k], got[k].Shape, "sample %d tensor %s", e.QSLIdx, ts.Name)
			l := layouts[k]
			assert.Equal(t, data[l.Offset:l.Offset+l.Length], got[k].Data, "sample %d tensor %s", e.QSLIdx, ts.Name)
		}
		seen[e.QSLIdx] = true
		return nil
	}))
	assert.Len(t, seen, n, "every sample was logged")
}

// TestBrokenTensorFiles: a truncated or mis-shaped stacked file stops
// `dataset info` and a run before the timed part, naming the file and
// the sample.
func TestBrokenTensorFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	set := filepath.Join(dir, "set")
	bertLikeSet(t, set, 10)
	p := filepath.Join(set, "input_mask.npy")
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(p, b[:len(b)-100], 0o644))
	model := filepath.Join(dir, "model.bin")
	require.NoError(t, os.WriteFile(model, []byte("any"), 0o644))

	for _, args := range [][]string{
		{"dataset", "info", set},
		{"run", "--plugin", "echo", "--plugin-dirs", installEcho(t), "--benchmark", "bert-99", "--dataset", set, "--model", model, "--out", "logs"},
	} {
		r := mlperfHost(t, dir, args...)
		assert.Equal(t, exitcode.Dataset, r.code, "%v\nstdout:\n%s\nstderr:\n%s", args, r.stdout, r.stderr)
		assert.Contains(t, r.stderr, "input_mask.npy is truncated")
		assert.Contains(t, r.stderr, "sample 8 is the first missing")
		assert.NoFileExists(t, filepath.Join(dir, "logs", "mlperf_log_summary.txt"), "nothing was timed")
	}
}
