package dataset

// Reader opens one reference form of a benchmark's data set, the form
// its reference implementation prepares (KiTS19's pickles, a LibriSpeech
// manifest, ...): the benchmarks' packages (internal/bench/...) each
// offer theirs, and the registry tries them on a path before [Open].
type Reader struct {
	// Is reports whether path holds the form.
	Is func(path string, o Options) bool
	// Open opens it.
	Open func(path string, o Options) (Dataset, error)
	// Last marks a reader whose Is claims more than its own form (every
	// .json file; every directory once the label map is a .json file):
	// it is tried after every reader without it.
	Last bool
}

// Former is implemented by the data sets that say, for `dataset info`,
// which form they are in (a benchmark's reference form, or how the
// stacked form was read).
type Former interface {
	Form() string
}

// Form describes the form a data set is in, for `dataset info`; "" when
// it does not say.
func Form(d Dataset) string {
	if f, ok := d.(Former); ok {
		return f.Form()
	}
	return ""
}

// Truther is implemented by the data sets whose files hold the ground
// truth their benchmark's official accuracy script reads.
type Truther interface {
	Truth() string
}

// Truth returns the ground truth of a data set in a reference form (the
// OpenImages annotation file, the KiTS19 directory with its nifti/
// segmentations, SQuAD's dev-v1.1.json, the prompts file with its
// reference outputs, the LibriSpeech manifest), or "".
func Truth(d Dataset) string {
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
func Vocab(d Dataset) string {
	if v, ok := d.(Vocaber); ok {
		return v.Vocab()
	}
	return ""
}
