package rgat

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"

	"github.com/mlperf-host/mlperf-host/internal/dataset"
)

// Fanouts are the neighbours the reference's PyGSampler takes per
// relation at each hop from the seed: its fan_out [5, 10, 15], sampled
// last layer first.
var Fanouts = []int{15, 10, 5}

// samplerSeed seeds the neighbourhood sampler's stream of each sample.
const samplerSeed = 0x52474154 // "RGAT"

// Graph is IGBH's graph as the reference samples it: per relation, each
// destination node's in-edges' sources.
type Graph struct {
	// Nodes counts the nodes of each type.
	Nodes []int64
	// in[r] is relation r's in-edges: the sources of node v's are
	// src[off[v]:off[v+1]].
	in []csr
}

type csr struct {
	off []int64
	src []int64
}

// ReadGraph reads the relations' edge files under a processed directory
// for node counts (one per NodeTypes entry), as the reference's
// load_edge_dict and augment_edges build them.
//
// # Errors
//
// Wraps [dataset.ErrCorrupt] for an edge file that is not int64
// [edges, 2] or names a node past its type's count, naming the file and
// the row.
func ReadGraph(processed string, nodes []int64) (*Graph, error) {
	g := &Graph{Nodes: nodes}
	files := map[string][]int64{}
	for _, r := range Relations {
		e, ok := files[r.File]
		if !ok {
			var err error
			if e, err = readEdges(filepath.Join(processed, r.File, EdgeIndex), nodes[r.Src], nodes[r.Dst], r); err != nil {
				return nil, err
			}
			files[r.File] = e
		}
		var src, dst []int64
		for k := 0; k < len(e); k += 2 {
			s, t := e[k], e[k+1]
			if r.Reverse {
				s, t = t, s
			}
			src, dst = append(src, s), append(dst, t)
		}
		if r.Src == r.Dst {
			src, dst = symmetrize(src, dst, nodes[r.Src])
		}
		g.in = append(g.in, byDestination(src, dst, nodes[r.Dst]))
	}
	return g, nil
}

// readEdges reads an edge file's rows, checking each against the node
// counts of its relation's file order (source, destination).
func readEdges(path string, srcNodes, dstNodes int64, r Relation) ([]int64, error) {
	a, err := openArray(path, 0, 0)
	if err != nil {
		return nil, err
	}
	if len(a.shape) != 2 || a.shape[1] != 2 {
		return nil, fmt.Errorf("%s: %w: shape %v, want [edges, 2]", path, dataset.ErrMismatch, a.shape)
	}
	e, err := a.int64s()
	if err != nil {
		return nil, err
	}
	if r.Reverse {
		srcNodes, dstNodes = dstNodes, srcNodes
	}
	names := filepath.Base(filepath.Dir(path))
	for k := 0; k < len(e); k += 2 {
		if e[k] < 0 || e[k] >= srcNodes || e[k+1] < 0 || e[k+1] >= dstNodes {
			return nil, fmt.Errorf("%s: %w: row %d is (%d, %d), %s has %d and %d nodes", path, dataset.ErrCorrupt, k/2, e[k], e[k+1], names, srcNodes, dstNodes)
		}
	}
	return e, nil
}

// symmetrize is augment_edges for paper__cites__paper: the self-loops
// dropped, one per node added, then every edge in both directions.
func symmetrize(src, dst []int64, nodes int64) ([]int64, []int64) {
	var s, d []int64
	for k := range src {
		if src[k] != dst[k] {
			s, d = append(s, src[k]), append(d, dst[k])
		}
	}
	for v := range nodes {
		s, d = append(s, v), append(d, v)
	}
	return append(s, d...), append(d, s...)
}

// byDestination indexes edges by destination, keeping their order.
func byDestination(src, dst []int64, nodes int64) csr {
	c := csr{off: make([]int64, nodes+1), src: make([]int64, len(src))}
	for _, t := range dst {
		c.off[t+1]++
	}
	for v := range nodes {
		c.off[v+1] += c.off[v]
	}
	next := append([]int64(nil), c.off[:nodes]...)
	for k, t := range dst {
		c.src[next[t]] = src[k]
		next[t]++
	}
	return c
}

// Neighbourhood is a seed paper's sampled neighbourhood: its nodes (the
// seed first), by type and id, and its edges as rows of four: hop,
// relation, source node, destination node (indices into Types).
type Neighbourhood struct {
	Types, IDs []int64
	Edges      []int64
}

// Sample samples the neighbourhood of paper seed as the reference's
// PyGSampler does: at each hop, for every node the previous hop reached
// and every relation into its type, up to Fanouts[hop] of its in-edges
// chosen uniformly without replacement (all of them when fewer); a node
// reached again is not sampled again. The choices come from a PCG
// stream seeded by stream (the sample index), so a sample's
// neighbourhood is the same on every read.
func (g *Graph) Sample(seed int64, stream uint64) *Neighbourhood {
	rng := rand.New(rand.NewPCG(samplerSeed, stream))
	h := &Neighbourhood{Types: []int64{0}, IDs: []int64{seed}}
	at := map[[2]int64]int64{{0, seed}: 0}
	frontier := []int64{0}
	var pick []int64
	for hop, fanout := range Fanouts {
		var next []int64
		for _, v := range frontier {
			t, id := h.Types[v], h.IDs[v]
			for r, rel := range Relations {
				if int64(rel.Dst) != t {
					continue
				}
				c := g.in[r]
				pick = append(pick[:0], c.src[c.off[id]:c.off[id+1]]...)
				if len(pick) > fanout {
					// A partial Fisher-Yates shuffle: the first fanout.
					for k := range fanout {
						j := k + rng.IntN(len(pick)-k)
						pick[k], pick[j] = pick[j], pick[k]
					}
					pick = pick[:fanout]
				}
				for _, s := range pick {
					key := [2]int64{int64(rel.Src), s}
					u, seen := at[key]
					if !seen {
						u = int64(len(h.Types))
						at[key] = u
						h.Types, h.IDs = append(h.Types, int64(rel.Src)), append(h.IDs, s)
						next = append(next, u)
					}
					h.Edges = append(h.Edges, int64(hop), int64(r), u, v)
				}
			}
		}
		frontier = next
	}
	return h
}
