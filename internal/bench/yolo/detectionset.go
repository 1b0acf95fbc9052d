package yolo

import "fmt"

// DetectionSetSide is the short side of a [DetectionSet] image: the
// smallest a fixture image with detections may have (640×384, letterboxed
// without a resize).
const DetectionSetSide = 384

// DetectionSet is a data set of n images of 640×384 pixels that the onnx
// plugin zoo's YOLOSignature model answers exactly: image i (COCO id
// i+1, file name the id in twelve digits, as val2017's) encodes one
// detection, or two for an odd i, of the slot classes whose rows lie in
// the image, each at its own place, and its ground truth is what they
// find ([TruthOf]), so every box is found and the mAP is 100%. Its
// categories are those classes' COCO ids, [DetectionSetCategories]; the
// slots of the rows in the letterbox's border answer its level, in
// categories with no ground truth, which COCO's evaluation leaves out.
func DetectionSet(n int) []Image {
	images := make([]Image, n)
	for i := range images {
		dets := []Detection{detectionAt(i, 0)}
		if i%2 == 1 {
			dets = append(dets, detectionAt(i, 1))
		}
		truth := make([]Object, len(dets))
		for k, d := range dets {
			truth[k] = TruthOf(d, Size, DetectionSetSide)
		}
		images[i] = Image{FileName: fmt.Sprintf("%012d.jpg", i+1), ID: i + 1, Width: Size, Height: DetectionSetSide,
			Detections: dets, Truth: truth}
	}
	return images
}

// DetectionSetCategories are the COCO ids of the slots' classes, the
// categories of a [DetectionSet].
func DetectionSetCategories() []int {
	return COCO80To91[detectionSetFirstClass():Slots]
}

// detectionSetFirstClass is the first slot class whose row (1+class)
// lies below the letterbox's top border on a DetectionSet image.
func detectionSetFirstClass() int {
	return LetterboxOf(Size, DetectionSetSide).Top/Cell - 1
}

// detectionAt is detection k of image i: its class, box and score vary
// with i, the box inside the image (levels of 640: the image's rows are
// the model input's 128 to 512, levels 51 to 204) and the two of an
// image of different classes.
func detectionAt(i, k int) Detection {
	first := detectionSetFirstClass()
	classes := Slots - first
	w := 20 + (i*7+k*13)%41 // 20 to 60
	h := 20 + (i*11+k*5)%21 // 20 to 40
	cx := 40 + (i*37+k*101)%176
	cy := 80 + (i*23+k*53)%91
	return Detection{Class: first + (i+2*k)%classes, CX: uint8(cx), CY: uint8(cy), W: uint8(w), H: uint8(h),
		Score: uint8(150 + (i*17+k*29)%100)}
}
