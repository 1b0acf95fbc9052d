package bench

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/internal/bench/bert"
	"github.com/mlperf-host/mlperf-host/internal/bench/dlrmv2"
	"github.com/mlperf-host/mlperf-host/internal/bench/llm"
	"github.com/mlperf-host/mlperf-host/internal/bench/qwen3vl"
	"github.com/mlperf-host/mlperf-host/internal/bench/resnet"
	"github.com/mlperf-host/mlperf-host/internal/bench/retinanet"
	"github.com/mlperf-host/mlperf-host/internal/bench/unet3d"
	"github.com/mlperf-host/mlperf-host/internal/bench/whisper"
	"github.com/mlperf-host/mlperf-host/internal/dataset"
)

func TestOpenFallsBackToDataset(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.NoError(t, resnet.WriteImageNet(dir, []int{1, 2}, []int{1, 5}))
	d, err := Open(dir, dataset.Options{})
	require.NoError(t, err)
	defer d.Close()
	assert.Equal(t, []int{1, 5}, d.Labels())
	assert.Empty(t, dataset.Form(d))
}

// TestOpenFindsEachForm: Open takes each reference form a row reads for
// that form, by its files, whatever the order of the table.
func TestOpenFindsEachForm(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, form string
		write      func(dir string) (string, error)
	}{
		{name: "openimages", form: "OpenImages", write: func(dir string) (string, error) {
			return dir, retinanet.WriteOpenImages(dir, []retinanet.OpenImage{{FileName: "a.jpg", Width: 10, Height: 10}}, []int{1}, 1)
		}},
		{name: "kits19", form: "KiTS19", write: func(dir string) (string, error) {
			return dir, unet3d.WriteKiTS(dir, []unet3d.FixtureCase{{Name: "case_00000", D: 1, H: 1, W: 2, Truth: []byte{0, 1}, Predicted: []byte{0, 1}}})
		}},
		{name: "criteo", form: "Criteo", write: func(dir string) (string, error) {
			return dir, dlrmv2.WriteCriteo(dir, [][]dlrmv2.CriteoRow{{{Probability: 0.5, Label: 1}}}, make([]int, dlrmv2.CriteoSparseFeatures))
		}},
		{name: "squad", form: "SQuAD", write: func(dir string) (string, error) {
			return dir, bert.WriteSQuAD(dir, []bert.SQuADQuestion{{ID: "a", Context: "To Paris.", Question: "Where?", Answer: "Paris"}}, 100)
		}},
		{name: "prompts", form: "LLM prompts", write: func(dir string) (string, error) {
			p := filepath.Join(dir, "prompts.json")
			return p, llm.WritePrompts(p, [][]int32{{1, 2}}, []string{"a"})
		}},
		{name: "librispeech manifest", form: "LibriSpeech", write: func(dir string) (string, error) {
			return filepath.Join(dir, whisper.LibriSpeechManifest), whisper.WriteLibriSpeech(dir, []whisper.LibriSpeechUtterance{{Transcript: "a", Spoken: "a"}})
		}},
		{name: "librispeech directory", form: "LibriSpeech", write: func(dir string) (string, error) {
			return dir, whisper.WriteLibriSpeech(dir, []whisper.LibriSpeechUtterance{{Transcript: "a", Spoken: "a"}})
		}},
		{name: "product catalogue", form: "Qwen3-VL product catalogue", write: func(dir string) (string, error) {
			return dir, qwen3vl.WriteCatalogue(dir, "train", qwen3vl.FixtureProducts(2, 1), 0)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path, err := tt.write(t.TempDir())
			require.NoError(t, err)
			d, err := Open(path, dataset.Options{})
			require.NoError(t, err)
			defer d.Close()
			assert.Contains(t, dataset.Form(d), tt.form)
		})
	}
	// A path that does not exist is package dataset's error.
	_, err := Open(filepath.Join(t.TempDir(), "absent"), dataset.Options{})
	require.ErrorIs(t, err, dataset.ErrNotFound)
	// A .json file no other form claims is a prompts file, and says why not.
	bad := filepath.Join(t.TempDir(), "x.json")
	require.NoError(t, os.WriteFile(bad, []byte(`{"a": 1}`), 0o644))
	_, err = Open(bad, dataset.Options{})
	assert.ErrorIs(t, err, dataset.ErrCorrupt)
}

// TestLookupScorer: each benchmark's scorer by its LoadGen model name,
// every scorer by its own name, top-1 for the classifiers.
func TestLookupScorer(t *testing.T) {
	t.Parallel()
	for benchmark, want := range map[string]string{
		"retinanet": "openimages", "3d-unet": "kits19", "dlrm-v2": "dlrm", "bert": "squad",
		"llama2-70b": "rouge", "llama3_1-8b": "cnndm", "llama3_1-8b-edge": "cnndm", "whisper": "whisper",
		"rgat": "igbh",
	} {
		sc, ok, err := LookupScorer("", benchmark)
		require.NoError(t, err)
		require.True(t, ok, benchmark)
		assert.Equal(t, want, sc.Name, benchmark)
	}
	for _, b := range []string{"resnet50", "fashion-mnist"} {
		_, ok, err := LookupScorer("", b)
		require.NoError(t, err)
		assert.False(t, ok, "%s is scored top-1 or not at all", b)
	}
	for _, name := range ScorerNames()[1:] {
		sc, ok, err := LookupScorer(name, "resnet50")
		require.NoError(t, err)
		require.True(t, ok)
		assert.Equal(t, name, sc.Name)
	}
	_, ok, err := LookupScorer(Top1Scorer, "whisper")
	require.NoError(t, err)
	assert.False(t, ok)
	_, _, err = LookupScorer("bleu", "")
	require.ErrorIs(t, err, ErrNoScorer)
	assert.ErrorContains(t, err, `no scorer "bleu": want one of imagenet, openimages, kits19, dlrm, dlrm-v3, squad, rouge, cnndm, mixtral, llama405b, deepseek-r1, gpt-oss, whisper, coco, igbh`)
}
