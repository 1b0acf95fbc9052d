// Command yoloset writes a yolo-99 data set in the reference form (a
// COCO directory: annotations/instances_val2017.json and val2017_safe/)
// for the tests' yolo-signature model, which finds each image's boxes
// exactly (package internal/bench/yolo, DetectionSet): mAP 100%. Its
// default is the round's data set size, 1525 images, each 640×384.
//
// Usage:
//
//	yoloset -dir DIR [-images N]
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/mlperf-host/mlperf-host/internal/bench/yolo"
)

func main() {
	dir := flag.String("dir", "", "COCO directory to write (created if missing)")
	n := flag.Int("images", 1525, "number of images")
	flag.Parse()
	if *dir == "" || *n < 1 || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: yoloset -dir DIR [-images N]")
		os.Exit(2)
	}
	if err := yolo.WriteCOCO(*dir, yolo.DetectionSet(*n), yolo.DetectionSetCategories()); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
