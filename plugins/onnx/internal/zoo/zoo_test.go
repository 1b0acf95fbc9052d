package zoo

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/onnxpb"
)

func TestModels(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		build  func(uint64) []byte
		convs  int
		params int
	}{
		// ResNet-50: 53 convolutions (49 + 4 projections) and 25.6M
		// parameters; MobileNetV2: 52 convolutions and 3.5M parameters.
		{name: "resnet50", build: ResNet50, convs: 53, params: 25_557_032},
		{name: "mobilenetv2", build: MobileNetV2, convs: 52, params: 3_504_872},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m, err := onnxpb.Decode(tt.build(7))
			require.NoError(t, err)
			convs := 0
			for _, n := range m.Graph.Nodes {
				if n.OpType == "Conv" {
					convs++
				}
			}
			params := 0
			for i := range m.Graph.Initializers {
				n, err := m.Graph.Initializers[i].Elements()
				require.NoError(t, err)
				if len(m.Graph.Initializers[i].Dims) > 0 {
					params += n
				}
			}
			assert.Equal(t, tt.convs, convs)
			// Folded BatchNorm leaves a bias per convolution instead of
			// BN's scale and shift, so the count is the reference minus
			// one vector per convolution, plus biases BN replaced.
			assert.InEpsilon(t, tt.params, params, 0.01)
		})
	}
}
