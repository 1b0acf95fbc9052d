// Package zoo builds random-weight ONNX models of standard topologies
// directly in Go, for performance runs where PyTorch is not available:
// ResNet-50 v1.5 and MobileNetV2 with 224×224 inputs and a free batch
// dimension, BatchNormalization already folded into the convolutions (as
// exporters do in inference mode). The weights are He-initialized from a
// seed, so activations stay finite through the whole network.
//
// Package zoo imports only the standard library and onnxpb; it must never
// import sdk, abi, host, loadgen, cmd or the engines.
package zoo
