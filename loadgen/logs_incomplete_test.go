package loadgen

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFullDiskMarksIncomplete: a log that cannot be written whole (here
// one that lands on /dev/full, whose every write fails with ENOSPC) never
// keeps its official name; the error lists it; the other logs are whole,
// and the detail log has every entry written before the end.
func TestFullDiskMarksIncomplete(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("needs /dev/full")
	}
	for _, full := range []string{"accuracy.json", "summary.txt", "detail.txt"} {
		t.Run(full, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			require.NoError(t, os.Symlink("/dev/full", filepath.Join(dir, "mlperf_log_"+full)))
			s := smallSettings(Offline)
			s.Mode = SubmissionRun
			sut := funcSUT{issue: func(_ context.Context, samples []QuerySample, r *Responder) error { return completeAll(r, samples) }}
			_, err := StartTest(context.Background(), sut, &fakeQSL{total: 32, perf: 16}, s, goldenLogSettings(dir))
			require.ErrorIs(t, err, syscall.ENOSPC)
			var ie *IncompleteError
			require.ErrorAs(t, err, &ie)
			official := filepath.Join(dir, "mlperf_log_"+full)
			assert.Equal(t, []string{official}, ie.Renamed)
			assert.ErrorContains(t, err, "no space left on device; incomplete logs renamed to .incomplete: "+official)
			assert.NoFileExists(t, official)
			_, lerr := os.Lstat(official + IncompleteSuffix)
			require.NoError(t, lerr)
			for _, f := range []string{"accuracy.json", "summary.txt", "detail.txt"} {
				if f == full {
					continue
				}
				b, err := os.ReadFile(filepath.Join(dir, "mlperf_log_"+f))
				require.NoError(t, err, "the other logs keep their names")
				assert.NotEmpty(t, b)
			}
			if full != "detail.txt" {
				detail := string(readLog(t, dir, "detail.txt"))
				assert.True(t, strings.HasSuffix(detail, "}}\n"), "whole lines")
				assert.Contains(t, detail, `"result_validity"`)
			}
		})
	}
}

// TestDetailLogStreamed: the detail log's entries are on disk as soon as
// they are written, not held until the end of the test: a host killed in
// the middle of a run leaves them.
func TestDetailLogStreamed(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var seen string
	sut := funcSUT{issue: func(_ context.Context, samples []QuerySample, r *Responder) error {
		if seen == "" {
			b, err := os.ReadFile(filepath.Join(dir, "mlperf_log_detail.txt"))
			require.NoError(t, err)
			seen = string(b)
		}
		return completeAll(r, samples)
	}}
	_, err := StartTest(context.Background(), sut, &fakeQSL{total: 32, perf: 16}, smallSettings(Offline), goldenLogSettings(dir))
	require.NoError(t, err)
	assert.Contains(t, seen, `"key": "effective_target_qps"`, "the settings were on disk when the first query was issued")
	assert.Contains(t, seen, `"key": "generated_query_count"`)
}
