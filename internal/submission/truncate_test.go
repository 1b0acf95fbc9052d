package submission

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// copyDir copies the files of src into a new directory.
func copyDir(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	for _, f := range files(src) {
		require.NoError(t, CopyFile(filepath.Join(src, f), filepath.Join(dst, f)))
	}
	return dst
}

// TestTruncateLikeTheOfficialTool: testdata/truncate/want is what the
// official tools/submission/truncate_accuracy_log.py (mlcommons/inference
// b66003e1) made of testdata/truncate/in, each case laid out as
// closed/acme/results/box/fashion-mnist/CASE/accuracy/ and run with
// `python3 truncate_accuracy_log.py --input IN --submitter acme --output
// OUT` (make verify-submission runs it again). The cases: a log under 4
// KiB (hashed, kept whole), 4-8 KiB (the two halves overlap), over 10 KiB,
// CRLF line ends and multi-byte characters (Python counts characters),
// and an accuracy.txt already hashed, with a small log (left alone) and a
// large one (hashed again).
func TestTruncateLikeTheOfficialTool(t *testing.T) {
	t.Parallel()
	for _, name := range subdirs("testdata/truncate/in") {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := copyDir(t, filepath.Join("testdata/truncate/in", name))
			backup := filepath.Join(t.TempDir(), "backup")
			changed, err := TruncateAccuracyLog(dir, backup)
			require.NoError(t, err)
			assert.Equal(t, name != "hashed_small", changed)
			for _, f := range []string{AccuracyFile, AccuracyText} {
				want, err := os.ReadFile(filepath.Join("testdata/truncate/want", name, f))
				require.NoError(t, err)
				got, err := os.ReadFile(filepath.Join(dir, f))
				require.NoError(t, err)
				assert.Equal(t, string(want), string(got), f)
			}
			if changed {
				orig, err := os.ReadFile(filepath.Join("testdata/truncate/in", name, AccuracyFile))
				require.NoError(t, err)
				kept, err := os.ReadFile(filepath.Join(backup, AccuracyFile))
				require.NoError(t, err)
				assert.Equal(t, orig, kept, "the backup is the original")
			}
			// A second pass is a no-op, as the official tool's is.
			again, err := TruncateAccuracyLog(dir, "")
			require.NoError(t, err)
			assert.False(t, again)
		})
	}
}

func TestTruncateRefuses(t *testing.T) {
	t.Parallel()
	dir := copyDir(t, "testdata/truncate/in/large")
	backup := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(backup, AccuracyFile), []byte("[]"), 0o644))
	_, err := TruncateAccuracyLog(dir, backup)
	require.ErrorIs(t, err, ErrNotTruncated)
	assert.Contains(t, err.Error(), "already exists")

	require.NoError(t, os.Remove(filepath.Join(dir, AccuracyText)))
	_, err = TruncateAccuracyLog(dir, "")
	require.ErrorIs(t, err, ErrNotTruncated)
	assert.Contains(t, err.Error(), "accuracy.txt missing, generate to continue")

	_, err = TruncateAccuracyLog(t.TempDir(), "")
	require.ErrorIs(t, err, ErrNotTruncated)
	assert.Contains(t, err.Error(), "mlperf_log_accuracy.json missing")
}

// TestTruncateCutCharacter: a log whose last 4096 bytes start inside a
// multi-byte character; the official tool stops with a UnicodeDecodeError
// there, after writing the hash.
func TestTruncateCutCharacter(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	log := make([]byte, 0, 9000)
	for len(log) < 9000 {
		log = append(log, "é"...)
	}
	log = append(log, 'x') // the last 4096 bytes start on a continuation byte
	require.NoError(t, os.WriteFile(filepath.Join(dir, AccuracyFile), log, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, AccuracyText), []byte("accuracy=1%\n"), 0o644))
	_, err := TruncateAccuracyLog(dir, "")
	require.ErrorContains(t, err, "not UTF-8 text")
	h, err := AccuracyHash(dir)
	require.NoError(t, err)
	assert.Len(t, h, 64)
}
