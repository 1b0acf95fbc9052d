package qwen3vl

import (
	"fmt"
	"strings"
	"sync"

	"github.com/mlperf-host/mlperf-host/internal/dataset"
)

// Reader opens the catalogue in its reference form: a directory of the
// Hugging Face data set (data/train-*.parquet, data/test-*.parquet) or
// one of its Parquet files.
var Reader = dataset.Reader{Is: func(path string, _ dataset.Options) bool { return catalogueFiles(path) != nil }, Open: open}

func open(path string, _ dataset.Options) (dataset.Dataset, error) {
	c, err := ReadCatalogue(path)
	if err != nil {
		return nil, fmt.Errorf("data set %s: %w", path, err)
	}
	return NewDataset(c), nil
}

// Dataset serves a catalogue's products as samples of one tensor,
// [MessagesTensor]: the request's chat messages, built when a sample is
// read (the images' base64 is not kept).
type Dataset struct {
	c    *Catalogue
	mu   sync.Mutex
	size []int // each sample's message bytes; 0 until measured
}

var (
	_ dataset.Dataset = (*Dataset)(nil)
	_ dataset.Former  = (*Dataset)(nil)
	_ dataset.Truther = (*Dataset)(nil)
)

// NewDataset serves c's products.
func NewDataset(c *Catalogue) *Dataset { return &Dataset{c: c, size: make([]int, len(c.Products))} }

// Catalogue is the data set read.
func (d *Dataset) Catalogue() *Catalogue { return d.c }

// Name is the data set's path.
func (d *Dataset) Name() string { return d.c.Path }

// Len is the number of products.
func (d *Dataset) Len() int { return len(d.c.Products) }

// Labels is nil: the ground truth is the scorer's.
func (d *Dataset) Labels() []int { return nil }

// Close does nothing: the catalogue is in memory.
func (d *Dataset) Close() error { return nil }

// Truth is the data set itself, which the evaluation reads its ground
// truth from.
func (d *Dataset) Truth() string { return d.c.Path }

// Form says what `dataset info` shows.
func (d *Dataset) Form() string {
	return fmt.Sprintf("Qwen3-VL product catalogue (Hugging Face Parquet: %d file(s) of the splits %s; samples are the chat messages with the image as a data URL)",
		len(d.c.Files), strings.Join(Splits, "+"))
}

// Schema is the one tensor of chat messages.
func (d *Dataset) Schema() dataset.Schema {
	return dataset.Schema{{Name: MessagesTensor, DType: dataset.Uint8, Shape: []int{dataset.Varies}}}
}

func (d *Dataset) check(i int) error {
	if i < 0 || i >= len(d.c.Products) {
		return fmt.Errorf("data set %s: sample index %d out of range [0, %d)", d.c.Path, i, len(d.c.Products))
	}
	return nil
}

// Shapes is the length of sample i's messages.
func (d *Dataset) Shapes(i int) ([][]int, error) {
	if err := d.check(i); err != nil {
		return nil, err
	}
	d.mu.Lock()
	n := d.size[i]
	d.mu.Unlock()
	if n == 0 {
		n = len(Messages(d.c.Products[i]))
		d.mu.Lock()
		d.size[i] = n
		d.mu.Unlock()
	}
	return [][]int{{n}}, nil
}

// ReadSample writes sample i's messages into dst.
func (d *Dataset) ReadSample(i int, dst []byte) error {
	if err := d.check(i); err != nil {
		return err
	}
	m := Messages(d.c.Products[i])
	if len(dst) != len(m) {
		return fmt.Errorf("data set %s: sample %d is %d bytes, not %d", d.c.Path, i, len(m), len(dst))
	}
	copy(dst, m)
	return nil
}
