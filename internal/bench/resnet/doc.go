// Package resnet is the ResNet-50 benchmark (image classification on
// ImageNet 2012) and the bundled Fashion-MNIST demo, a classifier scored
// the same way: the data set's reference form is package dataset's .npy
// directory with its val_map.txt, which [PrepareImageNet] writes from the
// raw JPEGs as the reference preprocesses them (package imaging); the
// response the official script reads is the predicted class ([Output]:
// one float32 by default); the scorer is accuracy-imagenet.py's top-1
// ([Top1], against the data set's labels); [WriteImageNet] writes the
// fixtures the end-to-end tests run.
//
// Package resnet imports only the standard library and the shared parts
// (dataset, accuracy, benchmarks, internal/benchlib); it must never
// import another benchmark's package, the registry (internal/bench),
// host, loadgen, sdk, plugins or cmd.
package resnet
