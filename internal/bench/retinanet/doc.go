// Package retinanet is the RetinaNet benchmark (object detection on
// OpenImages): the data set as the reference preprocesses it ([Reader]:
// one .npy per image in the order of the COCO-format annotations), the
// response the official script reads (rows of seven float32,
// [image_idx, ymin, xmin, ymax, xmax, score, label]), its scorer
// ([Scorer]: accuracy-openimages.py's COCO mAP, over package cocoeval)
// and the fixtures the end-to-end tests run ([WriteOpenImages]).
//
// Package retinanet imports only the standard library and the shared
// parts (dataset, accuracy, benchmarks, internal/benchlib); it must never
// import another benchmark's package, the registry (internal/bench),
// host, loadgen, sdk, plugins or cmd.
package retinanet
