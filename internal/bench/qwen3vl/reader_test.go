package qwen3vl

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/internal/benchlib/parquet"
	"github.com/mlperf-host/mlperf-host/internal/dataset"
)

// TestReaderFixture: the fixture reads as the reference loads it, train
// then test, and each sample is the request's messages.
func TestReaderFixture(t *testing.T) {
	t.Parallel()
	require.True(t, Reader.Is(fixtureDir, dataset.Options{}))
	d, err := Reader.Open(fixtureDir, dataset.Options{})
	require.NoError(t, err)
	defer d.Close()
	want := FixtureProducts(fixtureTrain+fixtureTest, 7)
	require.Equal(t, len(want), d.Len())
	qd, ok := d.(*Dataset)
	require.True(t, ok)
	assert.Equal(t, want, qd.Catalogue().Products)
	assert.Contains(t, dataset.Form(d), "Qwen3-VL product catalogue (Hugging Face Parquet: 2 file(s) of the splits train+test")
	assert.Equal(t, fixtureDir, dataset.Truth(d))
	assert.Equal(t, dataset.Schema{{Name: MessagesTensor, DType: dataset.Uint8, Shape: []int{dataset.Varies}}}, d.Schema())

	shapes, err := d.Shapes(3)
	require.NoError(t, err)
	buf := make([]byte, shapes[0][0])
	require.NoError(t, d.ReadSample(3, buf))
	var msgs []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	require.NoError(t, json.Unmarshal(buf, &msgs))
	require.Len(t, msgs, 2)
	var system string
	require.NoError(t, json.Unmarshal(msgs[0].Content, &system))
	assert.Equal(t, "system", msgs[0].Role)
	assert.Equal(t, SystemPrompt, system)
	var parts []struct {
		Type     string `json:"type"`
		Text     string `json:"text"`
		ImageURL struct {
			URL string `json:"url"`
		} `json:"image_url"`
	}
	require.NoError(t, json.Unmarshal(msgs[1].Content, &parts))
	require.Len(t, parts, 2)
	assert.Equal(t, "text", parts[0].Type)
	assert.Equal(t, UserText(want[3]), parts[0].Text)
	assert.Equal(t, "image_url", parts[1].Type)
	data, ok := strings.CutPrefix(parts[1].ImageURL.URL, "data:image/PNG;base64,")
	require.True(t, ok, parts[1].ImageURL.URL)
	img, err := base64.StdEncoding.DecodeString(data)
	require.NoError(t, err)
	assert.Equal(t, want[3].Image, img)
	assert.NotContains(t, string(buf), `\u003c`, "no HTML escaping: the text as the reference sends it")

	require.ErrorContains(t, d.ReadSample(3, buf[1:]), "is "+itoa(len(buf))+" bytes")
	_, err = d.Shapes(len(want))
	require.ErrorContains(t, err, "out of range")
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// TestUserText: the user's text as the reference's f-string writes it,
// the categories as str() of a Python list.
func TestUserText(t *testing.T) {
	t.Parallel()
	p := Product{Title: "T", Description: "D\nE", Categories: []string{"A > B", "C's"}}
	assert.Equal(t, "The title of the product is the following:\n```text\nT\n```\n\n"+
		"The description of the product is the following:\n```text\nD\nE\n```\n\n"+
		"The following are the possible product categories:\n```json\n['A > B', \"C's\"]\n```\n", UserText(p))
}

// TestPyList: str() of a list of strings, as Python 3.11 printed it.
func TestPyList(t *testing.T) {
	t.Parallel()
	in := []string{"a", "it's", `say "hi"`, `both ' and "`, `back\slash`, "tab\there", "nl\nx", "nº 日本語",
		"\x7f\u0085\u200b😀\U000E0001", "x\u2028y", "\u00a0"}
	want := `['a', "it's", 'say "hi"', 'both \' and "', 'back\\slash', 'tab\there', 'nl\nx', 'nº 日本語', '\x7f\x85\u200b😀\U000e0001', 'x\u2028y', '\xa0']`
	assert.Equal(t, want, pyList(in))
}

func TestImageFormat(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, data, want string }{
		{name: "jpeg", data: "\xff\xd8\xff\xe0", want: "JPEG"},
		{name: "png", data: "\x89PNG\r\n\x1a\n", want: "PNG"},
		{name: "webp", data: "RIFF\x00\x00\x00\x00WEBPVP8 ", want: "WEBP"},
		{name: "gif", data: "GIF89a", want: "GIF"},
		{name: "bmp", data: "BM....", want: "BMP"},
		{name: "tiff", data: "II*\x00", want: "TIFF"},
		{name: "unknown", data: "hello"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, ImageFormat([]byte(tc.data)))
		})
	}
}

// TestReadCatalogueErrors: each malformed input names its file and row.
func TestReadCatalogueErrors(t *testing.T) {
	t.Parallel()
	good := FixtureProducts(3, 2)
	write := func(t *testing.T, fields []parquet.Field, rows [][]any) string {
		t.Helper()
		dir := t.TempDir()
		var b bytes.Buffer
		require.NoError(t, parquet.Write(&b, fields, rows, parquet.WriteOptions{}))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "train-0.parquet"), b.Bytes(), 0o644))
		return dir
	}
	row := func(p Product) []any {
		return []any{p.Title, p.Description, []any{p.Image, nil}, p.Categories, p.Brand, p.Secondhand, p.Category}
	}
	rows := func(edit func(r []any)) [][]any {
		var out [][]any
		for i, p := range good {
			r := row(p)
			if i == 1 {
				edit(r)
			}
			out = append(out, r)
		}
		return out
	}
	for _, tc := range []struct {
		name, want string
		dir        func(t *testing.T) string
	}{
		{name: "no files", want: "no train-*.parquet", dir: func(t *testing.T) string { return t.TempDir() }},
		{name: "not parquet", want: "train-0.parquet: parquet: no PAR1 magic", dir: func(t *testing.T) string {
			dir := t.TempDir()
			require.NoError(t, os.WriteFile(filepath.Join(dir, "train-0.parquet"), []byte("not a parquet file"), 0o644))
			return dir
		}},
		{name: "missing column", want: "no column ground_truth_brand", dir: func(t *testing.T) string {
			var fields []parquet.Field
			for _, f := range catalogueFields {
				if f.Name != colBrand {
					fields = append(fields, f)
				}
			}
			return write(t, fields, [][]any{{"t", "d", []any{good[0].Image, nil}, []string{"a"}, false, "a"}})
		}},
		{name: "null brand", want: "row 1: corrupt data set file: ground_truth_brand is null", dir: func(t *testing.T) string {
			return write(t, catalogueFields, rows(func(r []any) { r[4] = nil }))
		}},
		{name: "no image", want: "row 1: corrupt data set file: product_image.bytes is null", dir: func(t *testing.T) string {
			return write(t, catalogueFields, rows(func(r []any) { r[2] = nil }))
		}},
		{name: "bad image", want: "row 1: corrupt data set file: product_image is no JPEG", dir: func(t *testing.T) string {
			return write(t, catalogueFields, rows(func(r []any) { r[2] = []any{[]byte("text"), "a.txt"} }))
		}},
		{name: "no categories", want: "row 1: corrupt data set file: potential_product_categories is empty", dir: func(t *testing.T) string {
			return write(t, catalogueFields, rows(func(r []any) { r[3] = []string{} }))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := tc.dir(t)
			_, err := ReadCatalogue(dir)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			assert.Contains(t, err.Error(), dir)
		})
	}
}
