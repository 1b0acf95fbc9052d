package qwen3vl

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mlperf-host/mlperf-host/internal/benchlib/parquet"
	"github.com/mlperf-host/mlperf-host/internal/dataset"
)

// MessagesTensor is the sample tensor holding a sample's chat messages
// (uint8: a JSON array, the request's "messages").
const MessagesTensor = "messages"

// The data set's columns, as the Hugging Face data set names them.
const (
	colTitle       = "product_title"
	colDescription = "product_description"
	colImage       = "product_image"
	colCategories  = "potential_product_categories"
	colBrand       = "ground_truth_brand"
	colSecondhand  = "ground_truth_is_secondhand"
	colCategory    = "ground_truth_category"
)

// Splits are the splits the reference concatenates, in its order
// (Dataset.split: train, then test).
var Splits = []string{"train", "test"}

// Product is one sample of the catalogue.
type Product struct {
	Title, Description string
	// Image is the image file's bytes as the data set holds them (JPEG,
	// PNG, WebP, ...).
	Image []byte
	// Categories are the candidate categories the prompt lists.
	Categories []string
	// The ground truth.
	Brand      string
	Secondhand bool
	Category   string
}

// Catalogue is the data set read whole: its products in the reference's
// order and the files they came from.
type Catalogue struct {
	Path     string
	Files    []string
	Products []Product
}

// catalogueFiles returns the Parquet files of a data set at path: the
// file itself, or the directory's (or its data/'s) files of the splits
// train-*.parquet then test-*.parquet, each split in name order; nil when
// there are none.
func catalogueFiles(path string) []string {
	if strings.HasSuffix(path, ".parquet") && dataset.IsFile(path) {
		return []string{path}
	}
	for _, d := range []string{filepath.Join(path, "data"), path} {
		var out []string
		for _, split := range Splits {
			m, _ := filepath.Glob(filepath.Join(d, split+"-*.parquet"))
			slices.Sort(m)
			out = append(out, m...)
		}
		if len(out) > 0 {
			return out
		}
	}
	return nil
}

// ReadCatalogue reads the data set at path (a directory of the Hugging
// Face data set, or one of its Parquet files).
//
// # Errors
//
// Wraps [dataset.ErrNotFound] when path holds no split's Parquet file,
// and [dataset.ErrCorrupt], naming the file and row, for a file that is
// not Parquet, a missing column, a null where the reference needs a
// value, or an image of no known format.
func ReadCatalogue(path string) (*Catalogue, error) {
	files := catalogueFiles(path)
	if files == nil {
		return nil, fmt.Errorf("%s: %w: no train-*.parquet or test-*.parquet file (in it or its data/)", path, dataset.ErrNotFound)
	}
	c := &Catalogue{Path: path, Files: files}
	for _, name := range files {
		ps, err := readFile(name)
		if err != nil {
			return nil, err
		}
		c.Products = append(c.Products, ps...)
	}
	if len(c.Products) == 0 {
		return nil, fmt.Errorf("%s: %w: no products", path, dataset.ErrCorrupt)
	}
	return c, nil
}

func readFile(name string) ([]Product, error) {
	fh, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	st, err := fh.Stat()
	if err != nil {
		return nil, err
	}
	f, err := parquet.Open(name, fh, st.Size())
	if err != nil {
		return nil, fmt.Errorf("%w: %w", dataset.ErrCorrupt, err)
	}
	n := int(f.NumRows())
	bad := func(row int, format string, args ...any) error {
		return fmt.Errorf("%s: row %d: %w: %s", name, row, dataset.ErrCorrupt, fmt.Sprintf(format, args...))
	}
	scalarCols := [][]string{{colTitle}, {colDescription}, {colImage, "bytes"}, {colBrand}, {colSecondhand}, {colCategory}}
	cols := make([][]*parquet.Value, len(scalarCols))
	for i, p := range scalarCols {
		c, err := f.Column(p...)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", dataset.ErrCorrupt, err)
		}
		if cols[i], err = c.Scalars(); err != nil {
			return nil, fmt.Errorf("%s: %w: %w", name, dataset.ErrCorrupt, err)
		}
	}
	lc, err := f.Column(colCategories, "list", "element")
	if err != nil {
		// pyarrow's older lists name the element "item".
		if lc, err = f.Column(colCategories, "list", "item"); err != nil {
			return nil, fmt.Errorf("%w: %w", dataset.ErrCorrupt, err)
		}
	}
	lists, err := lc.Lists()
	if err != nil {
		return nil, fmt.Errorf("%s: %w: %w", name, dataset.ErrCorrupt, err)
	}
	if len(lists) != n {
		return nil, fmt.Errorf("%s: %w: %s has %d rows of %d", name, dataset.ErrCorrupt, colCategories, len(lists), n)
	}
	out := make([]Product, n)
	for r := range out {
		for i, c := range cols {
			if c[r] == nil {
				return nil, bad(r, "%s is null", strings.Join(scalarCols[i], "."))
			}
		}
		p := Product{Title: string(cols[0][r].Bytes), Description: string(cols[1][r].Bytes), Image: cols[2][r].Bytes,
			Brand: string(cols[3][r].Bytes), Secondhand: cols[4][r].Bool, Category: string(cols[5][r].Bytes)}
		if ImageFormat(p.Image) == "" {
			return nil, bad(r, "%s is no JPEG, PNG, WebP, GIF, BMP or TIFF file (%d bytes)", colImage, len(p.Image))
		}
		if len(lists[r]) == 0 {
			return nil, bad(r, "%s is empty", colCategories)
		}
		for k, v := range lists[r] {
			if v == nil {
				return nil, bad(r, "%s[%d] is null", colCategories, k)
			}
			p.Categories = append(p.Categories, string(v.Bytes))
		}
		out[r] = p
	}
	return out, nil
}

// ImageFormat names an image file's format as PIL's Image.format does
// ("JPEG", "PNG", "WEBP", "GIF", "BMP", "TIFF"), from its magic bytes;
// "" for none of them.
func ImageFormat(b []byte) string {
	switch {
	case bytes.HasPrefix(b, []byte{0xff, 0xd8, 0xff}):
		return "JPEG"
	case bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")):
		return "PNG"
	case len(b) >= 12 && string(b[:4]) == "RIFF" && string(b[8:12]) == "WEBP":
		return "WEBP"
	case bytes.HasPrefix(b, []byte("GIF87a")), bytes.HasPrefix(b, []byte("GIF89a")):
		return "GIF"
	case bytes.HasPrefix(b, []byte("BM")):
		return "BMP"
	case bytes.HasPrefix(b, []byte("II*\x00")), bytes.HasPrefix(b, []byte("MM\x00*")):
		return "TIFF"
	}
	return ""
}

// fence is Markdown's code fence.
const fence = "```"

// SystemPrompt is the system message of every request: the task, and
// the JSON schema of ProductMetadata as pydantic writes it
// (json.dumps(model_json_schema(), indent=2)).
const SystemPrompt = `Please analyze the product from the user prompt
and provide the following fields in a valid JSON object:
- category
- brand
- is_secondhand

You must choose only one, which is the most appropriate, correct, and specifc
category out of the list of possible product categories.

The description of the product sometimes contains various types of source code
(e.g., JavaScript, CSS, HTML, etc.), where useful product information is embedded
somewhere inside the source code. For this task, you should extract the useful
product information from the source code and leverage it, and discard the
programmatic parts of the source code.

Your response should only contain a valid JSON object and nothing more, e.g.,
you should not fence the JSON object inside a ` + fence + `json code block.
The JSON object should match the followng JSON schema:
` + fence + "json\n" + productSchema + "\n" + fence + "\n"

// productSchema is ProductMetadata's JSON schema, indented by two.
const productSchema = `{
  "additionalProperties": false,
  "description": "Json format for the expected responses from the VLM.",
  "properties": {
    "category": {
      "description": "The complete category of the product, e.g.,\n\"Clothing & Accessories > Clothing > Shirts > Polo Shirts\".\nEach categorical level is separated by \" > \".",
      "title": "Category",
      "type": "string"
    },
    "brand": {
      "description": "The brand of the product, e.g., \"giorgio armani\".",
      "title": "Brand",
      "type": "string"
    },
    "is_secondhand": {
      "description": "True if the product is second-hand, False otherwise.",
      "title": "Is Secondhand",
      "type": "boolean"
    }
  },
  "required": [
    "category",
    "brand",
    "is_secondhand"
  ],
  "title": "ProductMetadata",
  "type": "object"
}`

// UserText is the user message's text part for a product.
func UserText(p Product) string {
	return "The title of the product is the following:\n" + fence + "text\n" + p.Title +
		"\n" + fence + "\n\nThe description of the product is the following:\n" + fence + "text\n" + p.Description +
		"\n" + fence + "\n\nThe following are the possible product categories:\n" + fence + "json\n" + pyList(p.Categories) + "\n" + fence + "\n"
}

// pyList is str() of a Python list of strings, as the f-string puts the
// candidate categories in the prompt: ['a', "b's"].
func pyList(items []string) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, s := range items {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(pyRepr(s))
	}
	b.WriteByte(']')
	return b.String()
}

// pyRepr is Python's repr of a str: single quotes unless the string
// holds a single quote and no double quote; backslash escapes for the
// quote, the backslash and unprintable characters.
func pyRepr(s string) string {
	q := '\''
	if strings.ContainsRune(s, '\'') && !strings.ContainsRune(s, '"') {
		q = '"'
	}
	var b strings.Builder
	b.WriteRune(q)
	for _, r := range s {
		switch {
		case r == q || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case !pyPrintable(r):
			switch {
			case r < 0x100:
				fmt.Fprintf(&b, `\x%02x`, r)
			case r < 0x10000:
				fmt.Fprintf(&b, `\u%04x`, r)
			default:
				fmt.Fprintf(&b, `\U%08x`, r)
			}
		default:
			b.WriteRune(r)
		}
	}
	b.WriteRune(q)
	return b.String()
}

// message is one chat message; Content is a string or a list of parts.
type message struct {
	Role    string `json:"role"`
	Content any    `json:"content"`
}

type part struct {
	Type     string    `json:"type"`
	Text     string    `json:"text,omitempty"`
	ImageURL *imageURL `json:"image_url,omitempty"`
}

type imageURL struct {
	URL string `json:"url"`
}

// Messages is the JSON array of chat messages the reference's SUT sends
// for a product: the system prompt, then the user's text part and the
// image as a data URL of the data set's own bytes
// (data:image/JPEG;base64,...).
func Messages(p Product) []byte {
	msgs := []message{
		{Role: "system", Content: SystemPrompt},
		{Role: "user", Content: []part{
			{Type: "text", Text: UserText(p)},
			{Type: "image_url", ImageURL: &imageURL{URL: "data:image/" + ImageFormat(p.Image) + ";base64," + base64.StdEncoding.EncodeToString(p.Image)}},
		}},
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(msgs) // strings and slices only: it cannot fail
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}
