package e2erag

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/internal/accuracy"
	"github.com/mlperf-host/mlperf-host/internal/dataset"
)

func TestOpenDocs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// sorted() orders by code point: upper case before lower case.
	for name, body := range map[string]string{"b.html": "<p>b</p>", "B.html": "<p>B!</p>", "a.html": "<p>a</p>", "notes.txt": "x"} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644))
	}
	require.NoError(t, os.Mkdir(filepath.Join(dir, "sub.html"), 0o755))
	d, err := OpenDocs(dir)
	require.NoError(t, err)
	assert.Equal(t, []string{"B.html", "a.html", "b.html"}, d.Files)
	shapes, err := d.Shapes(0)
	require.NoError(t, err)
	buf := make([]byte, d.Schema().SampleBytes(shapes))
	require.NoError(t, d.ReadSample(0, buf))
	assert.Equal(t, "<p>B!</p>", string(buf))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "B.html"), []byte("changed"), 0o644))
	require.ErrorIs(t, d.ReadSample(0, buf), dataset.ErrMismatch)

	_, err = OpenDocs(t.TempDir())
	require.ErrorIs(t, err, dataset.ErrNotFound)
}

func TestParseIngested(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		data string
		want Ingested
	}{
		{name: "ingested", data: "\x01", want: Ingested{OK: true}},
		{name: "failed", data: "\x00", want: Ingested{}},
		{name: "last, the database's digest", data: "0123456789abcdef0123456789abcdef", want: Ingested{OK: true, MD5: "0123456789abcdef0123456789abcdef"}},
	} {
		got, err := ParseIngested([]byte(tt.data))
		require.NoError(t, err, tt.name)
		assert.Equal(t, tt.want, got, tt.name)
	}
	for _, bad := range []string{"", "\x02", "0123456789abcdef0123456789abcdeX", "\x01\x01"} {
		_, err := ParseIngested([]byte(bad))
		require.ErrorIs(t, err, accuracy.ErrLog, "%q", bad)
	}
}

func FuzzParseIngested(f *testing.F) {
	f.Add([]byte{1})
	f.Add([]byte("0123456789abcdef0123456789abcdef"))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := ParseIngested(b)
		if err == nil && r.MD5 != "" {
			assert.Len(t, r.MD5, 32)
		}
	})
}
