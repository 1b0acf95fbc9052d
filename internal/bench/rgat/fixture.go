package rgat

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"

	"github.com/mlperf-host/mlperf-host/internal/benchlib/torchpt"
	"github.com/mlperf-host/mlperf-host/internal/dataset"
)

// Fixture is a small IGBH data set: node counts per type (NodeTypes'
// order), features per node, the papers' labels, each edge file's rows
// (source, destination) and the validation and training papers.
type Fixture struct {
	Nodes    []int
	Features int
	// Feature returns node id's features of a type; nil: zeros.
	Feature  func(nodeType, id int) []float32
	Labels   []float32
	Edges    map[string][][2]int64
	ValIdx   []int64
	TrainIdx []int64
}

// edgeFiles are the edge files the reference reads, in its order.
func edgeFiles() []string {
	var files []string
	for _, r := range Relations[:6] {
		files = append(files, r.File)
	}
	return files
}

// NewFixture makes a fixture of random edges: papers papers (the other
// types in proportion), features wide (2 or more), every paper labelled
// by rng, the training papers the first 60% of a shuffle and the val
// validation papers the next, as split_seeds.py picks them. A paper's
// first feature is its label (FixtureClass reads it) and every node's
// second feature 0, so that the zoo's rgat-signature model, which adds
// the second features of the seed's in-neighbours to its first, answers
// the label.
func NewFixture(seed uint64, papers, features, val int) Fixture {
	rng := rand.New(rand.NewPCG(seed, 1))
	f := Fixture{Nodes: []int{papers, 2 * papers, papers/4 + 1, papers/2 + 1, papers/8 + 1, papers/16 + 1}, Features: features,
		Edges: map[string][][2]int64{}}
	f.Labels = make([]float32, papers)
	for i := range f.Labels {
		f.Labels[i] = float32(rng.IntN(40))
	}
	f.Feature = func(t, id int) []float32 {
		v := make([]float32, features)
		for k := range v {
			v[k] = float32((t+1)*(id+k)%7) / 8
		}
		v[1] = 0
		if t == 0 {
			v[0] = f.Labels[id]
		}
		return v
	}
	for _, r := range Relations[:6] {
		n := 3 * f.Nodes[r.Src]
		for range n {
			f.Edges[r.File] = append(f.Edges[r.File], [2]int64{int64(rng.IntN(f.Nodes[r.Src])), int64(rng.IntN(f.Nodes[r.Dst]))})
		}
	}
	perm := rng.Perm(papers)
	train := papers * 6 / 10
	for _, p := range perm[:train] {
		f.TrainIdx = append(f.TrainIdx, int64(p))
	}
	for _, p := range perm[train : train+val] {
		f.ValIdx = append(f.ValIdx, int64(p))
	}
	return f
}

// FixtureClass is the class a fixture's seed features encode: the first.
func FixtureClass(features []float32) int64 { return int64(features[0]) }

// WriteIGBH writes a fixture as the reference's IGBH of a size under
// root: ROOT/SIZE/processed/..., every file a .npy (or torch.save)
// file.
func WriteIGBH(root, size string, f Fixture) error {
	p := filepath.Join(root, size, Processed)
	if len(f.Nodes) != len(NodeTypes) || len(f.Labels) != f.Nodes[0] {
		return fmt.Errorf("a fixture of %d node types and %d labels for %v nodes", len(f.Nodes), len(f.Labels), f.Nodes)
	}
	for t, name := range NodeTypes {
		feat := make([]float32, 0, f.Nodes[t]*f.Features)
		for id := range f.Nodes[t] {
			v := make([]float32, f.Features)
			if f.Feature != nil {
				v = f.Feature(t, id)
			}
			feat = append(feat, v...)
		}
		spec := dataset.Spec{DType: dataset.Float32, Shape: []int{f.Nodes[t], f.Features}}
		if err := writeNPY(filepath.Join(p, name, NodeFeat), spec, dataset.Float32Bytes(feat)); err != nil {
			return err
		}
	}
	spec := dataset.Spec{DType: dataset.Float32, Shape: []int{len(f.Labels)}}
	if err := writeNPY(filepath.Join(p, "paper", Labels), spec, dataset.Float32Bytes(f.Labels)); err != nil {
		return err
	}
	for _, file := range edgeFiles() {
		rows := f.Edges[file]
		var flat []int64
		for _, e := range rows {
			flat = append(flat, e[0], e[1])
		}
		spec := dataset.Spec{DType: dataset.Int64, Shape: []int{len(rows), 2}}
		if err := writeNPY(filepath.Join(p, file, EdgeIndex), spec, int64Bytes(flat)); err != nil {
			return err
		}
	}
	for name, v := range map[string][]int64{ValIdx: f.ValIdx, "train_idx.pt": f.TrainIdx} {
		var b bytes.Buffer
		if err := torchpt.WriteInt64(&b, name[:len(name)-3], []int{len(v)}, v); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(p, name), b.Bytes(), 0o644); err != nil {
			return err
		}
	}
	return nil
}

func writeNPY(path string, spec dataset.Spec, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return dataset.WriteNPYFile(path, spec, data)
}

func int64Bytes(v []int64) []byte {
	b := make([]byte, 0, 8*len(v))
	for _, x := range v {
		b = binary.LittleEndian.AppendUint64(b, uint64(x))
	}
	return b
}
