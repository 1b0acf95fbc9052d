package sdxl

import (
	"fmt"
	"math"

	"github.com/mlperf-host/mlperf-host/internal/benchlib/py"
)

// CLIPScore is the score the script averages: per image, 100 times the
// cosine of the CLIP image embedding (encode_image of the generated
// image) and the text embedding (encode_text of its caption), as
// clip_encoder.py's get_clip_score computes it in float32 (each
// embedding divided by its norm, then their dot product), and the mean
// over the images as np.mean.
//
// # Errors
//
// Refuses different counts of image and text embeddings, embeddings of
// different lengths, none, and a zero embedding.
func CLIPScore(image, text [][]float32) (float64, error) {
	if len(image) != len(text) || len(image) == 0 {
		return 0, fmt.Errorf("%d image and %d text embeddings, want one of each per image", len(image), len(text))
	}
	scores := make([]float64, len(image))
	for i := range image {
		if len(image[i]) != len(text[i]) || len(image[i]) == 0 {
			return 0, fmt.Errorf("image %d: embeddings of %d and %d values", i, len(image[i]), len(text[i]))
		}
		ni, nt := norm32(image[i]), norm32(text[i])
		if ni == 0 || nt == 0 {
			return 0, fmt.Errorf("image %d: a zero embedding", i)
		}
		var dot float32
		for k := range image[i] {
			dot += (image[i][k] / ni) * (text[i][k] / nt)
		}
		scores[i] = 100 * float64(dot)
	}
	return py.NumpyMean(scores), nil
}

func norm32(v []float32) float32 {
	var s float32
	for _, x := range v {
		s += x * x
	}
	return float32(math.Sqrt(float64(s)))
}
