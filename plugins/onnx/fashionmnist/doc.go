// Package fashionmnist embeds the onnx plugin's demo model and data: a
// small CNN trained on Fashion-MNIST by tools/onnxgen/fashion.py, the first
// 1000 images of the Fashion-MNIST test set with their labels (IDX files,
// gzipped), and PyTorch's predictions for them.
//
// The model takes raw pixels, uint8 [N,1,28,28] (scaling and normalization
// are in the graph), and returns logits, float [N,10]. A sample is one
// image's 784 bytes as stored in the data set. [ClassModel] is the model
// the demo benchmark serves: the same graph ending in ArgMax, whose
// response is the predicted class as a float32, as MLPerf's ResNet-50's is.
//
// Package fashionmnist imports only the standard library and the onnx
// plugin's onnxpb (to build ClassModel); it must never import sdk, abi,
// host, loadgen, cmd or the engines.
package fashionmnist
