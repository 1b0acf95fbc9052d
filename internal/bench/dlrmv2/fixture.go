package dlrmv2

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/mlperf-host/mlperf-host/internal/dataset"
)

// CriteoRow is one user-item pair of a Criteo fixture: the click
// probability the model answers (the zoo's DLRMSignature reads it from
// the first dense feature) and the label.
type CriteoRow struct {
	Probability float32
	Label       int32
}

// WriteCriteo writes the multi-hot Criteo day 23 as the DLRMv2 reference
// reads it into dir: day_23_dense.npy, day_23_sparse_multi_hot.npz
// (uncompressed, sizes as DLRMv2's), day_23_labels.npy (int32 [rows, 1])
// and the aggregation trace, sample i being samples[i]'s rows.
func WriteCriteo(dir string, samples [][]CriteoRow, multiHot []int) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var rows []CriteoRow
	var trace bytes.Buffer
	for _, s := range samples {
		fmt.Fprintf(&trace, "%d, %d, %d\n", len(rows), len(rows)+len(s), len(s))
		rows = append(rows, s...)
	}
	n := len(rows)
	dense := make([]float32, 13*n)
	labels := make([]byte, 0, 4*n)
	for r, row := range rows {
		dense[13*r] = row.Probability
		for k := 1; k < 13; k++ {
			dense[13*r+k] = float32((r*13+k)%97) / 10
		}
		labels = binary.LittleEndian.AppendUint32(labels, uint32(row.Label))
	}
	if err := dataset.WriteNPYFile(filepath.Join(dir, criteoDay+"_dense.npy"), dataset.Spec{DType: dataset.Float32, Shape: []int{n, 13}}, dataset.Float32Bytes(dense)); err != nil {
		return err
	}
	if err := dataset.WriteNPYFile(filepath.Join(dir, criteoDay+"_labels.npy"), dataset.Spec{DType: dataset.Int32, Shape: []int{n, 1}}, labels); err != nil {
		return err
	}
	var z bytes.Buffer
	zw := zip.NewWriter(&z)
	for k, size := range multiHot {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: strconv.Itoa(k) + ".npy", Method: zip.Store})
		if err != nil {
			return err
		}
		ids := make([]byte, 0, 4*n*size)
		for i := range n * size {
			ids = binary.LittleEndian.AppendUint32(ids, uint32((i*7919+k)%40000000))
		}
		if err := dataset.WriteNPY(w, dataset.Spec{DType: dataset.Int32, Shape: []int{n, size}}, ids); err != nil {
			return err
		}
	}
	if err := zw.Close(); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, criteoDay+"_sparse_multi_hot.npz"), z.Bytes(), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, CriteoTrace), trace.Bytes(), 0o644)
}
