package goengine

import (
	"fmt"
	"strconv"

	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/engine"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/onnxpb"
)

// Supported versions. IR 3 is the first with opset imports; IR 11 is
// ONNX 1.18's. Opset 7 is the first with numpy broadcasting for all
// binary operators; 23 is the newest whose semantics for our operators
// we implement.
const (
	minIR, maxIR        = 3, 11
	minOpset, maxOpset  = 7, 23
	defaultDomainAlias  = "ai.onnx"
	maxNodes, maxValues = 1 << 14, 1 << 16
	absent              = -1
)

// value is one named tensor of the graph.
type value struct {
	name string
	// konst holds initializer data; nil for computed values and inputs.
	konst *tensor
	// producer is the index of the node defining the value, or absent.
	producer int
	input    bool
	// info is the declared type of a graph input.
	info engine.TensorDesc
}

// node is one graph node with its operator resolved.
type node struct {
	name   string
	opType string
	in     []int // value ids; absent for an omitted optional input
	out    []int // value ids; absent for an omitted optional output
	op     op
	// idx is the node's position in graph.nodes.
	idx int
	// dead marks a node removed by fusion or dead-code elimination.
	dead bool
}

// graph is a validated, topologically sorted model.
type graph struct {
	values  []*value
	byName  map[string]int
	nodes   []*node
	inputs  []int
	outputs []int
	opset   int64
}

func nodeLabel(n *onnxpb.Node, i int) string {
	if n.Name != "" {
		return strconv.Quote(n.Name)
	}
	return "#" + strconv.Itoa(i)
}

// checkVersions validates the IR version and finds the default-domain
// opset.
func checkVersions(m *onnxpb.Model) (int64, error) {
	if m.IRVersion < minIR || m.IRVersion > maxIR {
		return 0, unsupported("IR version %d (supported: %d to %d)", m.IRVersion, minIR, maxIR)
	}
	opset := int64(-1)
	for _, o := range m.Opsets {
		if o.Domain == "" || o.Domain == defaultDomainAlias {
			if opset >= 0 {
				return 0, invalid("default opset imported twice")
			}
			opset = o.Version
		}
	}
	switch {
	case opset < 0:
		return 0, invalid("no default-domain opset import")
	case opset < minOpset || opset > maxOpset:
		return 0, unsupported("opset %d (supported: %d to %d)", opset, minOpset, maxOpset)
	}
	if !m.HasGraph {
		return 0, invalid("model has no graph")
	}
	return opset, nil
}

// buildGraph resolves names, sorts nodes topologically and creates each
// node's operator.
func buildGraph(m *onnxpb.Model) (*graph, error) {
	opset, err := checkVersions(m)
	if err != nil {
		return nil, err
	}
	pg := &m.Graph
	if len(pg.Nodes) > maxNodes {
		return nil, unsupported("%d nodes (at most %d)", len(pg.Nodes), maxNodes)
	}
	if pg.SparseInitializers > 0 {
		return nil, unsupported("sparse initializers")
	}
	g := &graph{byName: map[string]int{}, opset: opset}
	define := func(v *value) (int, error) {
		if v.name == "" {
			return 0, invalid("unnamed value")
		}
		if _, dup := g.byName[v.name]; dup {
			return 0, invalid("value %q defined twice", v.name)
		}
		if len(g.values) >= maxValues {
			return 0, unsupported("more than %d values", maxValues)
		}
		g.byName[v.name] = len(g.values)
		g.values = append(g.values, v)
		return len(g.values) - 1, nil
	}
	for i := range pg.Initializers {
		init := &pg.Initializers[i]
		t, err := fromProto(init)
		if err != nil {
			return nil, fmt.Errorf("initializer %q: %w", init.Name, asInvalid(err))
		}
		if _, err := define(&value{name: init.Name, konst: t, producer: absent}); err != nil {
			return nil, err
		}
	}
	for i := range pg.Inputs {
		vi := &pg.Inputs[i]
		if _, isInit := g.byName[vi.Name]; isInit {
			continue // an initializer's default value: constant here
		}
		desc, err := inputDesc(vi)
		if err != nil {
			return nil, err
		}
		id, err := define(&value{name: vi.Name, producer: absent, input: true, info: desc})
		if err != nil {
			return nil, err
		}
		g.inputs = append(g.inputs, id)
	}
	order, err := topoSort(pg.Nodes, g.byName)
	if err != nil {
		return nil, err
	}
	for _, ni := range order {
		pn := &pg.Nodes[ni]
		n := &node{name: nodeLabel(pn, ni), opType: pn.OpType, idx: len(g.nodes)}
		wrap := func(err error) error { return &NodeError{Node: n.name, Op: pn.OpType, Err: err} }
		for _, name := range pn.Inputs {
			if name == "" {
				n.in = append(n.in, absent)
				continue
			}
			n.in = append(n.in, g.byName[name]) // topoSort checked it exists
		}
		for _, name := range pn.Outputs {
			if name == "" {
				n.out = append(n.out, absent)
				continue
			}
			id, err := define(&value{name: name, producer: len(g.nodes)})
			if err != nil {
				return nil, wrap(err)
			}
			n.out = append(n.out, id)
		}
		if pn.Domain != "" && pn.Domain != defaultDomainAlias {
			return nil, wrap(unsupported("operator domain %q", pn.Domain))
		}
		if n.op, err = newOp(pn, opset); err != nil {
			return nil, wrap(err)
		}
		g.nodes = append(g.nodes, n)
	}
	if len(pg.Outputs) == 0 {
		return nil, invalid("graph has no outputs")
	}
	for _, vi := range pg.Outputs {
		id, ok := g.byName[vi.Name]
		if !ok {
			return nil, invalid("graph output %q is never produced", vi.Name)
		}
		g.outputs = append(g.outputs, id)
	}
	return g, nil
}

// topoSort orders nodes so that each comes after the producers of its
// inputs, and checks that every input name is defined somewhere.
func topoSort(nodes []onnxpb.Node, known map[string]int) ([]int, error) {
	producer := map[string]int{}
	for i := range nodes {
		for _, o := range nodes[i].Outputs {
			if o == "" {
				continue
			}
			if _, dup := producer[o]; dup {
				return nil, invalid("value %q produced by two nodes", o)
			}
			if _, isKnown := known[o]; isKnown {
				return nil, invalid("node %s redefines %q", nodeLabel(&nodes[i], i), o)
			}
			producer[o] = i
		}
	}
	waiting := make([]int, len(nodes))
	users := make([][]int, len(nodes))
	for i := range nodes {
		for _, in := range nodes[i].Inputs {
			if in == "" {
				continue
			}
			if p, ok := producer[in]; ok {
				waiting[i]++
				users[p] = append(users[p], i)
				continue
			}
			if _, ok := known[in]; !ok {
				return nil, &NodeError{Node: nodeLabel(&nodes[i], i), Op: nodes[i].OpType,
					Err: invalid("input %q is not a graph input, initializer or node output (missing initializer?)", in)}
			}
		}
	}
	order := kahn(waiting, func(i int) []int { return users[i] })
	if len(order) != len(nodes) {
		for i := range nodes {
			if waiting[i] > 0 {
				return nil, &NodeError{Node: nodeLabel(&nodes[i], i), Op: nodes[i].OpType, Err: invalid("graph has a cycle through this node")}
			}
		}
	}
	return order, nil
}

// inputDesc converts a graph input's declared type.
func inputDesc(vi *onnxpb.ValueInfo) (engine.TensorDesc, error) {
	d := engine.TensorDesc{Name: vi.Name, DType: engine.DType(vi.ElemType)}
	switch {
	case vi.NotTensor:
		return d, unsupported("input %q is not a tensor", vi.Name)
	case !vi.HasShape:
		return d, unsupported("input %q has no shape", vi.Name)
	}
	switch onnxpb.DataType(vi.ElemType) {
	case onnxpb.Float, onnxpb.Uint8, onnxpb.Int64:
	default:
		return d, unsupported("input %q of type %v", vi.Name, onnxpb.DataType(vi.ElemType))
	}
	for _, dim := range vi.Shape {
		switch {
		case !dim.HasValue:
			d.Shape = append(d.Shape, -1)
		case dim.Value < 0:
			return d, invalid("input %q has negative dimension %d", vi.Name, dim.Value)
		default:
			d.Shape = append(d.Shape, dim.Value)
		}
	}
	return d, nil
}

// asInvalid marks tensor decoding problems as invalid-model errors.
func asInvalid(err error) error {
	if err == nil || isUnsupported(err) {
		return err
	}
	return fmt.Errorf("%w: %w", errInvalid, err)
}

// kahn orders nodes 0..len(waiting)-1 topologically: waiting[i] counts
// node i's unfinished producers (it is consumed) and next(i) lists the
// nodes that wait for i, once per edge. The order is short when there is
// a cycle.
func kahn(waiting []int, next func(i int) []int) []int {
	var ready, order []int
	for i, w := range waiting {
		if w == 0 {
			ready = append(ready, i)
		}
	}
	for len(ready) > 0 {
		i := ready[0]
		ready = ready[1:]
		order = append(order, i)
		for _, u := range next(i) {
			if waiting[u]--; waiting[u] == 0 {
				ready = append(ready, u)
			}
		}
	}
	return order
}
