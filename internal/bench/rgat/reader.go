package rgat

import (
	"encoding/binary"
	"errors"
	"fmt"
	"path/filepath"
	"sync"

	"github.com/mlperf-host/mlperf-host/internal/dataset"
)

// The sample forms (dataset.Options.Features) and their tensors.
const (
	// FormSeed (the default) is the reference's sample: the validation
	// paper's node id, which its SUT samples a neighbourhood around.
	FormSeed = "seed"
	// FormNeighbourhood is the paper's sampled neighbourhood with its
	// nodes' features: what the reference's model is fed.
	FormNeighbourhood = "neighbourhood"

	// SeedTensor is the paper's node id, int64 [1].
	SeedTensor = "seed"
	// NodeTypeTensor is each sampled node's type (NodeTypes' index),
	// int64 [nodes]; node 0 is the seed.
	NodeTypeTensor = "node_type"
	// NodeIDTensor is each sampled node's id among its type's, int64
	// [nodes].
	NodeIDTensor = "node_id"
	// FeaturesTensor is each sampled node's features, float32 [nodes,
	// features].
	FeaturesTensor = "features"
	// EdgesTensor is each sampled edge, int64 [edges, 4]: the hop
	// (0 for the seed's own neighbours), the relation (Relations'
	// index), the source and the destination node (rows of the node
	// tensors).
	EdgesTensor = "edges"
)

// Reader opens IGBH in the reference's form (see [Locate]).
var Reader = dataset.Reader{
	Is:   func(path string, _ dataset.Options) bool { _, ok := Locate(path); return ok },
	Open: func(path string, o dataset.Options) (dataset.Dataset, error) { return Open(path, o.Features) },
}

// igbh is an open IGBH data set.
type igbh struct {
	dir    Dir
	form   string
	valIdx []int64
	// The neighbourhood form's graph and features.
	graph *Graph
	feats []*array
	mu    sync.Mutex
	hoods map[int]*Neighbourhood
}

var _ dataset.Dataset = (*igbh)(nil)

// Open opens the IGBH data set at path in a sample form: FormSeed (or
// "") or FormNeighbourhood, which reads every edge file and checks
// every feature file's shape.
//
// # Errors
//
// Wraps [dataset.ErrNotFound] for a missing file, [dataset.ErrCorrupt]
// for a malformed one and [dataset.ErrMismatch] for files that disagree,
// naming the file and the record (a val_idx entry, an edge row).
func Open(path, form string) (dataset.Dataset, error) {
	dir, ok := Locate(path)
	if !ok {
		return nil, fmt.Errorf("data set %s: %w: no %s under %s, SIZE/%s or its sizes", path, dataset.ErrNotFound, ValIdx, Processed, Processed)
	}
	if form == "" {
		form = FormSeed
	}
	if form != FormSeed && form != FormNeighbourhood {
		return nil, fmt.Errorf("data set %s: sample form %q: want %s or %s", path, form, FormSeed, FormNeighbourhood)
	}
	la, err := dir.openLabels()
	if err != nil {
		return nil, fmt.Errorf("data set %s: %w", path, err)
	}
	d := &igbh{dir: dir, form: form, hoods: map[int]*Neighbourhood{}}
	if d.valIdx, err = dir.readValIdx(la.rows()); err != nil {
		return nil, fmt.Errorf("data set %s: %w", path, err)
	}
	if form == FormNeighbourhood {
		if err := d.openGraph(la.rows()); err != nil {
			d.Close()
			return nil, fmt.Errorf("data set %s: %w", path, err)
		}
	}
	return d, nil
}

// openGraph opens every node type's features and reads every relation.
func (d *igbh) openGraph(papers int64) error {
	counts := make([]int64, len(NodeTypes))
	for t, name := range NodeTypes {
		rows, cols := d.dir.rawShape(t, FeatureDim)
		a, err := openArray(filepath.Join(d.dir.Processed, name, NodeFeat), rows, cols)
		if err != nil {
			return err
		}
		if a.dtype != dataset.Float32 || len(a.shape) != 2 {
			return fmt.Errorf("%s: %w: %s%v, want float32 [nodes, features]", a.path, dataset.ErrMismatch, a.dtype, a.shape)
		}
		if t > 0 && a.shape[1] != d.feats[0].shape[1] {
			return fmt.Errorf("%s: %w: %d features, paper/%s has %d", a.path, dataset.ErrMismatch, a.shape[1], NodeFeat, d.feats[0].shape[1])
		}
		if err := a.keep(); err != nil {
			return err
		}
		d.feats = append(d.feats, a)
		counts[t] = a.rows()
	}
	if counts[0] != papers {
		return fmt.Errorf("%s: %w: %d papers, paper/%s labels %d", d.feats[0].path, dataset.ErrMismatch, counts[0], Labels, papers)
	}
	g, err := ReadGraph(d.dir.Processed, counts)
	if err != nil {
		return err
	}
	d.graph = g
	return nil
}

func (d *igbh) Name() string  { return d.dir.Processed }
func (d *igbh) Len() int      { return len(d.valIdx) }
func (d *igbh) Labels() []int { return nil }
func (d *igbh) Close() error {
	var errs []error
	for _, a := range d.feats {
		errs = append(errs, a.close())
	}
	return errors.Join(errs...)
}
func (d *igbh) Truth() string { return d.dir.Processed }

func (d *igbh) Form() string {
	if d.form == FormSeed {
		return fmt.Sprintf("IGBH %s (%s): the validation papers of %s, one node id a sample, as the R-GAT reference's QSL hands them to its SUT", d.dir.Size, d.dir.Processed, ValIdx)
	}
	return fmt.Sprintf("IGBH %s (%s): the validation papers of %s, each with the neighbourhood the R-GAT reference samples around it (fanouts %v over %d relations) and its nodes' features",
		d.dir.Size, d.dir.Processed, ValIdx, Fanouts, len(Relations))
}

func (d *igbh) Schema() dataset.Schema {
	if d.form == FormSeed {
		return dataset.Schema{{Name: SeedTensor, DType: dataset.Int64, Shape: []int{1}}}
	}
	return dataset.Schema{
		{Name: SeedTensor, DType: dataset.Int64, Shape: []int{1}},
		{Name: NodeTypeTensor, DType: dataset.Int64, Shape: []int{dataset.Varies}},
		{Name: NodeIDTensor, DType: dataset.Int64, Shape: []int{dataset.Varies}},
		{Name: FeaturesTensor, DType: dataset.Float32, Shape: []int{dataset.Varies, int(d.feats[0].shape[1])}},
		{Name: EdgesTensor, DType: dataset.Int64, Shape: []int{dataset.Varies, 4}},
	}
}

// neighbourhood samples (once) sample i's neighbourhood.
func (d *igbh) neighbourhood(i int) *Neighbourhood {
	d.mu.Lock()
	defer d.mu.Unlock()
	h, ok := d.hoods[i]
	if !ok {
		h = d.graph.Sample(d.valIdx[i], uint64(i))
		d.hoods[i] = h
	}
	return h
}

func (d *igbh) Shapes(i int) ([][]int, error) {
	if i < 0 || i >= len(d.valIdx) {
		return nil, fmt.Errorf("data set %s: sample index %d out of range [0, %d)", d.Name(), i, len(d.valIdx))
	}
	if d.form == FormSeed {
		return [][]int{{1}}, nil
	}
	h := d.neighbourhood(i)
	n := len(h.Types)
	return [][]int{{1}, {n}, {n}, {n, int(d.feats[0].shape[1])}, {len(h.Edges) / 4, 4}}, nil
}

func (d *igbh) ReadSample(i int, dst []byte) error {
	shapes, err := d.Shapes(i)
	if err != nil {
		return err
	}
	if want := d.Schema().SampleBytes(shapes); len(dst) != want {
		return fmt.Errorf("data set %s: sample %d: buffer of %d bytes, want %d", d.Name(), i, len(dst), want)
	}
	binary.LittleEndian.PutUint64(dst, uint64(d.valIdx[i]))
	if d.form == FormSeed {
		return nil
	}
	h := d.neighbourhood(i)
	at := 8
	put := func(v []int64) {
		for _, x := range v {
			binary.LittleEndian.PutUint64(dst[at:], uint64(x))
			at += 8
		}
	}
	put(h.Types)
	put(h.IDs)
	for k, t := range h.Types {
		a := d.feats[t]
		b, err := a.read(h.IDs[k]*a.cols(), a.cols())
		if err != nil {
			return fmt.Errorf("data set %s: sample %d: node %d: %w", d.Name(), i, k, err)
		}
		at += copy(dst[at:], b)
	}
	put(h.Edges)
	return nil
}
