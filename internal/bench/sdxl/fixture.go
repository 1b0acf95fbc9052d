package sdxl

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"encoding/csv"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"

	"github.com/mlperf-host/mlperf-host/internal/benchlib/torchpt"
	"github.com/mlperf-host/mlperf-host/internal/dataset"
)

// WriteCOCO writes a data set into dir in the reference's form:
// captions/captions.tsv with a row per caption (as tools/coco.py writes
// it with pandas' to_csv: tab separated, a field with a quote quoted)
// and latents/latents.pt holding latents of shape [1, 4, size/8,
// size/8] (torch.save's archive, [torchpt.Write]), or latents.npy with
// npy.
func WriteCOCO(dir string, captions []Caption, latents []float32, size int, npy bool) error {
	shape := []int{1, 4, size / 8, size / 8}
	if len(latents) != 4*(size/8)*(size/8) {
		return fmt.Errorf("%d latents for %v", len(latents), shape)
	}
	for _, d := range []string{"captions", "latents"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			return err
		}
	}
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	w.Comma = '\t'
	if err := w.Write(columns); err != nil {
		return err
	}
	for _, c := range captions {
		rec := []string{strconv.FormatInt(c.ID, 10), strconv.FormatInt(c.ImageID, 10), c.Caption, strconv.Itoa(c.Height), strconv.Itoa(c.Width), c.FileName, c.URL}
		if err := w.Write(rec); err != nil {
			return err
		}
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, CaptionsFile), b.Bytes(), 0o644); err != nil {
		return err
	}
	if npy {
		return dataset.WriteNPYFile(filepath.Join(dir, LatentsNPY), dataset.Spec{DType: dataset.Float32, Shape: shape}, dataset.Float32Bytes(latents))
	}
	b.Reset()
	if err := torchpt.Write(&b, "latents", shape, latents); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, LatentsPT), b.Bytes(), 0o644)
}

// GenerateLatents makes n standard-normal latents from seed (the
// reference's are torch.randn's with seed 0; these only stand in).
func GenerateLatents(seed uint64, n int) []float32 {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	out := make([]float32, n)
	for i := range out {
		out[i] = float32(rng.NormFloat64())
	}
	return out
}

// GenerateCaptions makes n caption rows in the COCO subset's style: ids
// and image ids, sizes and file names, captions from words.
func GenerateCaptions(n int, words []string) []Caption {
	out := make([]Caption, n)
	for i := range out {
		img := int64(100000 + 7919*i)
		name := fmt.Sprintf("COCO_val2014_%012d.jpg", img)
		out[i] = Caption{ID: int64(3 * i), ImageID: img, Caption: words[i%len(words)], Height: 480, Width: 640,
			FileName: name, URL: "http://images.cocodataset.org/val2014/" + name}
	}
	return out
}

// WriteFeatures writes a features directory (ScoreLog's): the reference
// statistics as val2014.npz (mu.npy and sigma.npy, float64, deflated as
// np.savez_compressed writes them), the generated images' Inception
// features and their CLIP image and text embeddings as float64 and
// float32 .npy files.
func WriteFeatures(dir string, ref Statistics, inception [][]float64, clipImage, clipText [][]float32) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var b bytes.Buffer
	z := zip.NewWriter(&b)
	d := len(ref.Mu)
	for _, a := range []struct {
		name  string
		shape []int
		v     []float64
	}{{"mu.npy", []int{d}, ref.Mu}, {"sigma.npy", []int{d, d}, ref.Sigma}} {
		w, err := z.CreateHeader(&zip.FileHeader{Name: a.name, Method: zip.Deflate})
		if err != nil {
			return err
		}
		if err := dataset.WriteNPY(w, dataset.Spec{DType: dataset.Float64, Shape: a.shape}, float64Bytes(a.v)); err != nil {
			return err
		}
	}
	if err := z.Close(); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, StatisticsFile), b.Bytes(), 0o644); err != nil {
		return err
	}
	var flat []float64
	for _, r := range inception {
		flat = append(flat, r...)
	}
	if err := dataset.WriteNPYFile(filepath.Join(dir, InceptionFile), dataset.Spec{DType: dataset.Float64, Shape: []int{len(inception), len(inception[0])}}, float64Bytes(flat)); err != nil {
		return err
	}
	for name, rows := range map[string][][]float32{CLIPImageFile: clipImage, CLIPTextFile: clipText} {
		var f []float32
		for _, r := range rows {
			f = append(f, r...)
		}
		if err := dataset.WriteNPYFile(filepath.Join(dir, name), dataset.Spec{DType: dataset.Float32, Shape: []int{len(rows), len(rows[0])}}, dataset.Float32Bytes(f)); err != nil {
			return err
		}
	}
	return nil
}

// float64Bytes is v as little-endian float64.
func float64Bytes(v []float64) []byte {
	b, _ := binary.Append(nil, binary.LittleEndian, v) // a []float64 always encodes
	return b
}
