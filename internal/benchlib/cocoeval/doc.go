// Package cocoeval is COCO's bounding-box evaluation (pycocotools'
// COCOeval with iouType "bbox" and its default parameters), written from
// the published algorithm: per image and category, detections sorted by
// score are matched greedily to the best unmatched ground truth at each
// IoU threshold; precision is made monotone and sampled at 101 recall
// points; the mAP is the mean of every sampled precision over
// thresholds, recall points and categories that have ground truth
// (stats[0], [MAP]). [Results] reads the rows of an MLPerf detection
// accuracy log against a COCO-format annotation file ([Annotations]) as
// accuracy-openimages.py and accuracy-coco.py do.
//
// Package cocoeval imports only the standard library and package py; it
// must never import a benchmark's room (internal/bench/...), host,
// loadgen, sdk, plugins or cmd.
package cocoeval
