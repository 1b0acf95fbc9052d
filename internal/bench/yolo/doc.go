// Package yolo is the YOLO benchmark (yolo-95 and yolo-99: YOLOv11
// object detection on the COCO val2017 "safe" subset): the data set as
// the reference reads and ultralytics preprocesses it ([Reader]: the
// images the COCO annotations list, in their order, letterboxed to
// 640×640 as [Letterbox] does), the response the official script reads
// (rows of seven float32, [qsl_idx, ymin, xmin, ymax, xmax, score, COCO
// category id], the box in [0, 1] of the original image), its scorer
// ([Scorer]: accuracy-coco.py's COCO mAP, over package cocoeval, with
// its --remove-48-empty-images image map) and the fixtures the tests run
// ([WriteCOCO]; [DetectionSet], a data set of any size the signature
// model answers exactly).
//
// Package yolo imports only the standard library and the shared parts
// (dataset, accuracy, benchmarks, internal/benchlib); it must never
// import another benchmark's package, the registry (internal/bench),
// host, loadgen, sdk, plugins or cmd.
package yolo
