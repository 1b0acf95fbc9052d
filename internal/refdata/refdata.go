package refdata

import (
	"os"
	"path/filepath"

	"github.com/mlperf-host/mlperf-host/internal/dataset"
)

// Former is implemented by the data sets of this package: Form says, for
// `dataset info`, which reference form the data set is in.
type Former interface {
	Form() string
}

// Options tell Open how to read a data set.
type Options struct {
	// LabelMap is the file that lists the samples where a form has one
	// beside the data: ImageNet's val_map.txt, OpenImages' annotation
	// JSON, DLRM's aggregation trace. "" looks for it in the directory.
	LabelMap string
	// Features is what a LibriSpeech sample holds: "audio" (or ""),
	// "mel128" or "mel80" ([OpenLibriSpeech]).
	Features string
}

// Open opens a data set by path: a reference form this package reads
// (KiTS19's preprocessed pickles, preprocessed OpenImages with its
// annotations, the multi-hot Criteo day 23, a LibriSpeech manifest with
// its WAV files, a prompts JSON file), else
// whatever package dataset opens (a .npy directory with its val_map.txt,
// the stacked form, a directory per sample, a compact file).
func Open(path string, o Options) (dataset.Dataset, error) {
	st, err := os.Stat(path)
	switch {
	case err != nil:
		// dataset.Open words the error.
	case IsLibriSpeech(path):
		return OpenLibriSpeech(path, o.Features)
	case !st.IsDir() && filepath.Ext(path) == ".json":
		return OpenPrompts(path)
	case !st.IsDir():
	case IsSQuAD(path):
		return OpenSQuAD(path)
	case IsKiTS(path):
		return OpenKiTS(path)
	case IsCriteo(path):
		return OpenCriteo(path, o.LabelMap)
	case openImagesAnnotations(path, o.LabelMap) != "" && !dataset.IsStacked(path) && !dataset.IsSampleDirs(path):
		return OpenOpenImages(path, openImagesAnnotations(path, o.LabelMap))
	}
	return dataset.Open(path, dataset.Options{LabelMap: o.LabelMap})
}

// Truther is implemented by the data sets whose files hold the ground
// truth their benchmark's official accuracy script reads.
type Truther interface {
	Truth() string
}

// Truth returns the ground truth of a data set in a reference form (the
// OpenImages annotation file, the KiTS19 directory with its nifti/
// segmentations, SQuAD's dev-v1.1.json, the prompts file with its reference outputs,
// the LibriSpeech manifest), or "".
func Truth(d dataset.Dataset) string {
	if t, ok := d.(Truther); ok {
		return t.Truth()
	}
	return ""
}

// Vocaber is implemented by the data sets whose files hold the
// tokenizer's vocabulary their benchmark's official script reads.
type Vocaber interface {
	Vocab() string
}

// Vocab returns the tokenizer file of a data set in a reference form
// (SQuAD's vocab.txt), or "".
func Vocab(d dataset.Dataset) string {
	if v, ok := d.(Vocaber); ok {
		return v.Vocab()
	}
	return ""
}

// Form describes the form a data set is in, for `dataset info`.
func Form(d dataset.Dataset) string {
	if f, ok := d.(Former); ok {
		return f.Form()
	}
	return ""
}
