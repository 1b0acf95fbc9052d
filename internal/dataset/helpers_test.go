package dataset

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// sample returns a deterministic sample for index i.
func sample(spec Spec, i int) []byte {
	b := make([]byte, spec.Bytes())
	for j := range b {
		b[j] = byte(i*31 + j*7)
	}
	return b
}

func memorySet(t testing.TB, spec Spec, n int, labeled bool) *Memory {
	t.Helper()
	var samples [][]byte
	var labels []int
	for i := range n {
		samples = append(samples, sample(spec, i))
		if labeled {
			labels = append(labels, i%10)
		}
	}
	m, err := NewMemory("mem", spec, samples, labels)
	require.NoError(t, err)
	return m
}

func writeNPY(t testing.TB, path string, spec Spec, data []byte) {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, WriteNPY(&b, spec, data))
	require.NoError(t, os.WriteFile(path, b.Bytes(), 0o644))
}

// npyDirSet writes n samples as NAME.JPEG.npy files plus val_map.txt.
func npyDirSet(t testing.TB, spec Spec, n int) string {
	t.Helper()
	dir := t.TempDir()
	var m bytes.Buffer
	for i := range n {
		name := filepath.Join(dir, sampleName(i))
		writeNPY(t, name+".npy", spec, sample(spec, i))
		m.WriteString(sampleName(i) + " " + string(rune('0'+i%10)) + "\n")
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, DefaultLabelMap), m.Bytes(), 0o644))
	return dir
}

func sampleName(i int) string {
	return "ILSVRC2012_val_" + string(rune('a'+i/26)) + string(rune('a'+i%26)) + ".JPEG"
}

func compactFile(t testing.TB, src Dataset) string {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, WriteCompact(&b, src))
	p := filepath.Join(t.TempDir(), "set.mlph")
	require.NoError(t, os.WriteFile(p, b.Bytes(), 0o644))
	return p
}
