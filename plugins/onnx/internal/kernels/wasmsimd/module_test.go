package wasmsimd

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// stamp reads onnx_simd.stamp: "key value" lines after a comment.
func stamp(t *testing.T) map[string]string {
	t.Helper()
	f, err := os.Open("onnx_simd.stamp")
	require.NoError(t, err)
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if line := sc.Text(); line != "" && !strings.HasPrefix(line, "#") {
			k, v, _ := strings.Cut(line, " ")
			out[k] = v
		}
	}
	require.NoError(t, sc.Err())
	return out
}

// sourcesHash is what make onnx-simd records: the sha256 of each csrc/
// file's name and a newline, then its bytes, in byte order of the names.
func sourcesHash(t *testing.T) string {
	t.Helper()
	entries, err := os.ReadDir("csrc")
	require.NoError(t, err)
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		names = append(names, e.Name())
	}
	slices.Sort(names)
	h := sha256.New()
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join("csrc", n))
		require.NoError(t, err)
		h.Write([]byte(n + "\n"))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// TestModuleCurrent fails when csrc/ changed since onnx_simd.wasm was
// built, or when the module is not the one built: `make onnx-simd`
// rebuilds both (it needs clang and lld; this test does not).
func TestModuleCurrent(t *testing.T) {
	t.Parallel()
	st := stamp(t)
	assert.Equal(t, st["sources"], sourcesHash(t), "csrc/ changed since onnx_simd.wasm was built: run make onnx-simd")
	sum := sha256.Sum256(Module())
	assert.Equal(t, st["module"], hex.EncodeToString(sum[:]), "onnx_simd.wasm is not the module the stamp records: run make onnx-simd")
}

func TestModuleIsWasm(t *testing.T) {
	t.Parallel()
	assert.True(t, bytes.HasPrefix(Module(), []byte("\x00asm\x01\x00\x00\x00")))
}
