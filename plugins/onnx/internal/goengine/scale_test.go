package goengine

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/engine"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/onnxpb"
)

// TestLoadManyNodes loads a chain of 2500 Conv→BN→Add→Relu blocks
// (10000 nodes, all fusable) and checks that each block fuses into one
// Conv. Fusion and sorting are linear in the nodes, so a model with many
// nodes cannot stall Load.
func TestLoadManyNodes(t *testing.T) {
	t.Parallel()
	const blocks = 2500
	var nodes []onnxpb.Node
	inits := []onnxpb.Tensor{
		onnxpb.FloatTensor("w", []int64{1, 1, 1, 1}, []float32{0.5}),
		onnxpb.FloatTensor("one", []int64{1}, []float32{1}),
		onnxpb.FloatTensor("zero", []int64{1}, []float32{0}),
	}
	x := "x"
	for i := range blocks {
		c, b, r, a := fmt.Sprint("c", i), fmt.Sprint("b", i), fmt.Sprint("r", i), fmt.Sprint("a", i)
		nodes = append(nodes,
			nd("Conv", []string{x, "w"}, []string{c}),
			nd("BatchNormalization", []string{c, "one", "zero", "zero", "one"}, []string{b}),
			nd("Add", []string{b, x}, []string{a}),
			nd("Relu", []string{a}, []string{r}))
		x = r
	}
	nodes = append(nodes, nd("Identity", []string{x}, []string{"y"}))
	m := model(nodes, inits, []onnxpb.ValueInfo{floatInfo("x", -1, 1, 2, 2)}, []onnxpb.ValueInfo{floatInfo("y", -1, 1, 2, 2)})
	s, err := New().Load(context.Background(), m, engine.Options{Threads: 1})
	require.NoError(t, err)
	defer s.Close()
	live := 0
	for _, n := range s.(*session).g.nodes {
		if !n.dead {
			live++
		}
	}
	require.Equal(t, blocks+1, live, "each block fuses into one Conv")
}
