// Package onnxpb reads and writes the subset of the ONNX protobuf format
// that inference needs: ModelProto, OperatorSetIdProto, GraphProto,
// NodeProto, AttributeProto, TensorProto (raw_data and the typed data
// fields), ValueInfoProto and the tensor TypeProto. It decodes the wire
// format directly with google.golang.org/protobuf/encoding/protowire: no
// generated code, which keeps the WASM build of the plugin small.
//
// Decoding is defensive: the input may be hostile. Every error wraps
// [ErrMalformed] and names the field path where decoding stopped; nothing
// panics, nothing recurses more than a fixed depth (subgraph attributes
// are recorded, not decoded), and no allocation is sized by a length the
// file claims rather than by bytes actually present. Shapes are checked
// for negative dimensions and overflow by [Tensor.Elements].
//
// External data (tensors whose bytes lie in a file beside the model, as
// exporters write models over 2 GB) is read by [ExternalDir] through an
// [os.Root] on the model's directory: locations are checked to stay in
// it, ranges against the file's size and the tensor's shape.
//
// Package onnxpb imports only the standard library and protowire; it must
// never import sdk, abi, host, loadgen, cmd or the engines.
package onnxpb
