package zoo

import (
	"fmt"

	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/onnxpb"
)

// ExternalMinBytes is the smallest initializer [WithExternalData] moves
// out: below onnx's 1 KiB so that the zoo's small weights go, above the
// few int64s of a shape or axes list, which stay inline as onnx keeps
// them.
const ExternalMinBytes = 64

// WithExternalData moves the raw data of model's initializers of at
// least [ExternalMinBytes] into an external data file named location
// (relative to the model's directory), as exporters write models over
// 2 GB, and returns the new graph and the file's bytes. The graph must hold nothing [onnxpb.Encode] drops
// (subgraphs): the zoo's models do not.
func WithExternalData(model []byte, location string) (graph, data []byte, err error) {
	m, err := onnxpb.Decode(model)
	if err != nil {
		return nil, nil, fmt.Errorf("zoo: %w", err)
	}
	data = onnxpb.Externalize(m, location, ExternalMinBytes)
	return onnxpb.Encode(m), data, nil
}
