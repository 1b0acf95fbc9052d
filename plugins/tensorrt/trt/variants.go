package trt

import (
	"cmp"
	"fmt"
	"slices"
)

// variant is one engine of the model: a plan built for a range of batch
// sizes (per batch size, as NVIDIA builds them, or with its own
// optimization profiles). All variants of a model have the same inputs
// and outputs; each batch runs on the smallest variant whose batch range
// holds it (a small static engine instead of padding a large one).
type variant struct {
	plan   []byte
	layout *layout
	// profiles is the engine's optimization profiles: a dynamic engine
	// gives each to one execution context at a time.
	profiles int
}

// copies returns how many copies of v a device deserializes for streams
// lanes: ceil(streams/profiles) of a dynamic engine, one static engine
// shared by every lane.
func (v *variant) copies(streams int) int {
	if !v.layout.dynamic {
		return 1
	}
	return (streams + v.profiles - 1) / v.profiles
}

// engineOf returns the copy and profile lane s runs v with.
func (v *variant) engineOf(s int) (cp, profile int) {
	if !v.layout.dynamic {
		return 0, 0
	}
	return s / v.profiles, s % v.profiles
}

// readVariant reads the layout of eng, deserialized from plan, with the
// profiles streams lanes use.
func readVariant(api trtAPI, eng handle, plan []byte, streams int) (*variant, error) {
	profiles := max(1, api.NumProfiles(eng))
	used := []int{0}
	for p := 1; p < min(profiles, streams); p++ {
		used = append(used, p)
	}
	l, err := readLayout(api, eng, used)
	if err != nil {
		return nil, err
	}
	if err := l.sizeOutputs(api, eng); err != nil {
		return nil, err
	}
	return &variant{plan: plan, layout: l, profiles: profiles}, nil
}

// chooseVariants orders the variants by the largest batch they take and
// keeps those a batch of at most batch samples can run on: up to the
// first whose range reaches batch. It fails when no variant takes batch,
// or when two variants' I/O differ.
func chooseVariants(vs []*variant, batch int) ([]*variant, error) {
	for i, v := range vs[1:] {
		if err := sameIO(vs[0].layout, v.layout); err != nil {
			return nil, fmt.Errorf("engine 0 and engine %d are not of one model: %w", i+1, err)
		}
	}
	vs = slices.Clone(vs)
	slices.SortStableFunc(vs, func(a, b *variant) int { return cmp.Compare(a.layout.maxBatch, b.layout.maxBatch) })
	for i, v := range vs {
		if v.layout.maxBatch >= batch {
			return vs[:i+1], nil
		}
	}
	return nil, fmt.Errorf("batch_size %d exceeds the engines' maximum batch %d", batch, vs[len(vs)-1].layout.maxBatch)
}

// sameIO reports how two engines' inputs and outputs differ: names,
// types and batch rows must agree, in order.
func sameIO(a, b *layout) error {
	for _, pair := range [][2][]tensorInfo{{a.inputs, b.inputs}, {a.outputs, b.outputs}} {
		x, y := pair[0], pair[1]
		if len(x) != len(y) {
			return fmt.Errorf("%d and %d tensors", len(x), len(y))
		}
		for i := range x {
			if x[i].name != y[i].name || x[i].dtype != y[i].dtype || !slices.Equal(x[i].dims[1:], y[i].dims[1:]) {
				return fmt.Errorf("tensor %q %s%v against %q %s%v", x[i].name, dataTypes[x[i].dtype].name, x[i].dims[1:],
					y[i].name, dataTypes[y[i].dtype].name, y[i].dims[1:])
			}
		}
	}
	return nil
}

// engineContext is one lane's execution context of one variant, bound to
// the lane's buffers, with the input shapes last set and the CUDA graphs
// captured on it.
type engineContext struct {
	v   *variant
	ctx handle
	// shapes holds each input's dims with the batch in dims[0].
	shapes [][]int64
	// rows is the batch of the input shapes last set; 0 forces a reset.
	rows int
	// outRows are the outputs' row sizes for the shapes last set.
	outRows []int
	// graphs holds the captured engine launches by batch rows
	// (cuda_graphs).
	graphs map[int]*laneGraph
}

// contextFor returns the lane's context of the smallest variant that runs
// n samples (the variants are ordered by their largest batch).
func (l *lane) contextFor(n int) *engineContext {
	for _, c := range l.ctxs {
		if n <= c.v.layout.maxBatch {
			return c
		}
	}
	return l.ctxs[len(l.ctxs)-1]
}

// batchRange returns the batch sizes context i runs: above the previous
// variant's largest batch, up to its own or the model's batch.
func (l *lane) batchRange(i int) (lo, hi int) {
	lo = 1
	if i > 0 {
		lo = l.ctxs[i-1].v.layout.maxBatch + 1
	}
	return lo, min(l.ctxs[i].v.layout.maxBatch, l.m.batch)
}
