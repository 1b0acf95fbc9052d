package e2erag

import (
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/mlperf-host/mlperf-host/internal/accuracy"
	"github.com/mlperf-host/mlperf-host/internal/dataset"
)

// DocumentTensor is a sample of e2e-rag-db: one HTML document's bytes,
// uint8 [size], which the SUT parses, chunks, embeds and indexes.
const DocumentTensor = "document"

// Docs is e2e-rag-db's document set as QSL_datasetup.py reads it: the
// *.html files of the corpus directory (doc_html/), sorted by name.
type Docs struct {
	dir   string
	Files []string
	sizes []int
}

var _ dataset.Dataset = (*Docs)(nil)

// OpenDocs opens a corpus directory.
//
// # Errors
//
// Names the directory when it holds no *.html file, as the reference
// refuses it.
func OpenDocs(dir string) (*Docs, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.html"))
	if err != nil {
		return nil, err
	}
	d := &Docs{dir: dir}
	for _, f := range files {
		st, err := os.Stat(f)
		if err != nil {
			return nil, fmt.Errorf("data set %s: %w", dir, err)
		}
		if st.Mode().IsRegular() {
			d.Files = append(d.Files, filepath.Base(f))
		}
	}
	if len(d.Files) == 0 {
		return nil, fmt.Errorf("data set %s: %w: no *.html documents", dir, dataset.ErrNotFound)
	}
	slices.Sort(d.Files) // Python's sorted() of the names: by code point, as Go's string order
	for _, f := range d.Files {
		st, err := os.Stat(filepath.Join(dir, f))
		if err != nil {
			return nil, fmt.Errorf("data set %s: %w", dir, err)
		}
		d.sizes = append(d.sizes, int(st.Size()))
	}
	return d, nil
}

func (d *Docs) Name() string  { return d.dir }
func (d *Docs) Len() int      { return len(d.Files) }
func (d *Docs) Labels() []int { return nil }
func (d *Docs) Close() error  { return nil }
func (d *Docs) Form() string {
	return "HTML documents (*.html), as the e2e-rag-db reference's QSL lists them"
}

func (d *Docs) Schema() dataset.Schema {
	return dataset.Schema{{Name: DocumentTensor, DType: dataset.Uint8, Shape: []int{dataset.Varies}}}
}

func (d *Docs) Shapes(i int) ([][]int, error) {
	if i < 0 || i >= len(d.Files) {
		return nil, fmt.Errorf("data set %s: sample index %d out of range [0, %d)", d.dir, i, len(d.Files))
	}
	return [][]int{{d.sizes[i]}}, nil
}

// ReadSample reads document i, which must still be the size it had when
// the set was opened.
func (d *Docs) ReadSample(i int, dst []byte) error {
	if _, err := d.Shapes(i); err != nil {
		return err
	}
	b, err := os.ReadFile(filepath.Join(d.dir, d.Files[i]))
	if err != nil {
		return fmt.Errorf("data set %s: sample %d: %w", d.dir, i, err)
	}
	if len(b) != len(dst) {
		return fmt.Errorf("data set %s: sample %d: %w: %s is %d bytes, was %d", d.dir, i, dataset.ErrMismatch, d.Files[i], len(b), len(dst))
	}
	copy(dst, b)
	return nil
}

// Ingested is a response of e2e-rag-db as reference_SUT_datasetup.py
// completes a document: one byte, 1 for a document ingested and 0 for a
// failure; for the document after which the database was saved, the
// database's MD5 as 32 hex digits (UTF-8) instead.
type Ingested struct {
	OK bool
	// MD5 is the saved database's digest, "" but in the last response.
	MD5 string
}

// ParseIngested reads a response of e2e-rag-db.
//
// # Errors
//
// Wraps accuracy.ErrLog for other than one byte 0 or 1 or 32 hex digits.
func ParseIngested(data []byte) (Ingested, error) {
	switch {
	case len(data) == 1 && data[0] <= 1:
		return Ingested{OK: data[0] == 1}, nil
	case len(data) == 32:
		if _, err := hex.DecodeString(string(data)); err == nil {
			return Ingested{OK: true, MD5: string(data)}, nil
		}
	}
	return Ingested{}, fmt.Errorf("%w: a response of %d bytes, want one byte 0 or 1 or the database's MD5 in hex", accuracy.ErrLog, len(data))
}
