package qwen3vl

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"

	"github.com/mlperf-host/mlperf-host/internal/benchlib/parquet"
)

// catalogueFields are the data set's columns in the Hugging Face
// data set's order; the image is the datasets library's Image feature
// (a struct of its bytes and path).
var catalogueFields = []parquet.Field{
	{Name: colTitle, Kind: parquet.String},
	{Name: colDescription, Kind: parquet.String},
	{Name: colImage, Kind: parquet.Group, Fields: []parquet.Field{{Name: "bytes", Kind: parquet.Bytes}, {Name: "path", Kind: parquet.String}}},
	{Name: colCategories, Kind: parquet.StringList},
	{Name: colBrand, Kind: parquet.String},
	{Name: colSecondhand, Kind: parquet.Bool},
	{Name: colCategory, Kind: parquet.String},
}

// WriteCatalogue writes products as the Hugging Face data set stores a
// split: dir/data/SPLIT-00000-of-00001.parquet, snappy-compressed and
// dictionary-encoded as pyarrow writes it by default, one row group per
// rowGroup rows (0: one).
func WriteCatalogue(dir, split string, products []Product, rowGroup int) error {
	rows := make([][]any, len(products))
	for i, p := range products {
		rows[i] = []any{p.Title, p.Description, []any{p.Image, nil}, p.Categories, p.Brand, p.Secondhand, p.Category}
	}
	var b bytes.Buffer
	if err := parquet.Write(&b, catalogueFields, rows, parquet.WriteOptions{Snappy: true, Dictionary: true, RowGroup: rowGroup}); err != nil {
		return err
	}
	d := filepath.Join(dir, "data")
	if err := os.MkdirAll(d, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(d, split+"-00000-of-00001.parquet"), b.Bytes(), 0o644)
}

// WriteRecords writes the products as the rows the datasets library
// hands the reference (every column but the image), a JSON list: the
// input of the verification's stand-in for that library
// (tools/accuracyref/shims/q3vl/datasets.py).
func WriteRecords(path string, products []Product) error {
	type record struct {
		Title       string   `json:"product_title"`
		Description string   `json:"product_description"`
		Categories  []string `json:"potential_product_categories"`
		Brand       string   `json:"ground_truth_brand"`
		Secondhand  bool     `json:"ground_truth_is_secondhand"`
		Category    string   `json:"ground_truth_category"`
	}
	recs := make([]record, len(products))
	for i, p := range products {
		recs[i] = record{p.Title, p.Description, p.Categories, p.Brand, p.Secondhand, p.Category}
	}
	b, err := json.MarshalIndent(recs, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// FixtureProducts makes n products from seed: small PNG images, a few
// levels of categories among which the true one is, brands and
// second-hand flags, and titles and descriptions with the characters a
// prompt must carry (quotes, backslashes, non-ASCII text).
func FixtureProducts(n int, seed uint64) []Product {
	rng := rand.New(rand.NewPCG(seed, seed^0x5157))
	tops := []string{"Apparel & Accessories", "Home & Garden", "Electronics", "Toys & Games"}
	mids := []string{"Clothing", "Kitchen", "Audio", "Puzzles", "Décor"}
	leaves := []string{"Shirts", "Mugs", "Headphones", "Jigsaw", "Vases", "Lamps"}
	brands := []string{"Acme", "Giorgio Armani", "Zeiß", "O'Neill", "", "north face"}
	out := make([]Product, n)
	for i := range out {
		var cats []string
		for range 3 + rng.IntN(5) {
			parts := []string{tops[rng.IntN(len(tops))]}
			for range rng.IntN(3) {
				parts = append(parts, mids[rng.IntN(len(mids))])
			}
			if rng.IntN(2) == 0 {
				parts = append(parts, leaves[rng.IntN(len(leaves))])
			}
			cats = append(cats, strings.Join(parts, categorySeparator))
		}
		out[i] = Product{
			Title:       fmt.Sprintf("Product %d \"deluxe\" it's", i),
			Description: fmt.Sprintf("A fine thing, nº %d.\n<div class=\"x\">\\n</div> 日本語", i),
			Image:       fixtureImage(rng),
			Categories:  cats,
			Brand:       brands[rng.IntN(len(brands))],
			Secondhand:  rng.IntN(3) == 0,
			Category:    cats[rng.IntN(len(cats))],
		}
	}
	return out
}

func fixtureImage(rng *rand.Rand) []byte {
	w, h := 2+rng.IntN(6), 2+rng.IntN(6)
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, color.RGBA{R: uint8(rng.IntN(256)), G: uint8(rng.IntN(256)), B: uint8(rng.IntN(256)), A: 255})
		}
	}
	var b bytes.Buffer
	_ = png.Encode(&b, img) // into memory: it cannot fail
	return b.Bytes()
}
