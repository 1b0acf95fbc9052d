package submission

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The cases of testdata/verify: each want.txt is what the official
// compliance script said of the case (scripts/submission/official_verdicts.py
// records them from mlcommons/inference b66003e1; make verify-submission
// checks them again). mlperf-host must say the same, word for word.

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(b)
}

func open(t *testing.T, path string) *os.File {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	t.Cleanup(func() { f.Close() })
	return f
}

func verifyCases(t *testing.T, kind string, verify func(t *testing.T, dir string) Verdict) {
	t.Helper()
	names := subdirs(filepath.Join("testdata/verify", kind))
	require.NotEmpty(t, names)
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join("testdata/verify", kind, name)
			want := read(t, filepath.Join(dir, "want.txt"))
			v := verify(t, dir)
			// A path the script printed is relative to the case.
			assert.Equal(t, want, strings.ReplaceAll(v.Text, dir+"/", ""))
			passed := strings.Contains(want, Pass) || strings.Contains(want, "verification complete")
			assert.Equal(t, passed, v.Pass)
		})
	}
}

func TestVerifyTEST01AccuracyAsOfficial(t *testing.T) {
	t.Parallel()
	verifyCases(t, "test01acc", func(t *testing.T, dir string) Verdict {
		dtype := DType(strings.TrimSpace(read(t, filepath.Join(dir, "dtype"))))
		v, err := VerifyTEST01Accuracy(open(t, filepath.Join(dir, "accuracy.json")), open(t, filepath.Join(dir, "compliance.json")), dtype)
		require.NoError(t, err)
		return v
	})
}

func TestVerifyTEST01PerformanceAsOfficial(t *testing.T) {
	t.Parallel()
	verifyCases(t, "test01perf", func(t *testing.T, dir string) Verdict {
		v, err := VerifyTEST01Performance(filepath.Join(dir, "ref"), filepath.Join(dir, "test"))
		require.NoError(t, err)
		return v
	})
}

func TestVerifyTEST04AsOfficial(t *testing.T) {
	t.Parallel()
	verifyCases(t, "test04", func(t *testing.T, dir string) Verdict {
		v, err := VerifyTEST04(open(t, filepath.Join(dir, "ref_summary.txt")), open(t, filepath.Join(dir, "test_summary.txt")))
		require.NoError(t, err)
		return v
	})
}

func TestVerifyTEST06AsOfficial(t *testing.T) {
	t.Parallel()
	verifyCases(t, "test06", func(t *testing.T, dir string) Verdict {
		sc := strings.TrimSpace(read(t, filepath.Join(dir, "scenario")))
		v, err := VerifyTEST06(open(t, filepath.Join(dir, AccuracyFile)), sc, Int32, []int64{2})
		require.NoError(t, err)
		return v
	})
}

func TestVerifyErrors(t *testing.T) {
	t.Parallel()
	_, err := VerifyTEST01Accuracy(strings.NewReader("[]"), strings.NewReader(`[{"seq_id": 0, "qsl_idx": 0, "data": "0102"}]`), Float32)
	require.ErrorContains(t, err, "buffer size 2 must be a multiple of element size 4")
	_, err = VerifyTEST01Accuracy(strings.NewReader("not json"), strings.NewReader("[]"), Byte)
	require.Error(t, err)
	_, err = VerifyTEST06(strings.NewReader(`[{"seq_id": 0, "qsl_idx": 0, "data": "02000000"}]`), "Offline", Int32, []int64{2})
	require.ErrorContains(t, err, "without token_count")
}

func TestPyFloat(t *testing.T) {
	t.Parallel()
	// Python 3's repr of each.
	for f, want := range map[float64]string{
		150000: "150000.0", 2000.25: "2000.25", 1e9 / 300000: "3333.3333333333335", 1e16: "1e+16",
		1.5e-5: "1.5e-05", 0.0001: "0.0001", 123456789012345.6: "123456789012345.6", math.Inf(1): "inf",
	} {
		assert.Equal(t, want, pyFloat(f))
	}
}
