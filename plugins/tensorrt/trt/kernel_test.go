package trt

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGatherPTXIsGenerated keeps kernels/gather.ptx, which the plugin
// embeds, the output of llc for kernels/gather.ll (`make tensorrt-ptx`).
func TestGatherPTXIsGenerated(t *testing.T) {
	t.Parallel()
	llc, err := exec.LookPath("llc")
	if err != nil {
		t.Skip("llc (LLVM's NVPTX backend) not found: cannot regenerate kernels/gather.ptx")
	}
	out := filepath.Join(t.TempDir(), "gather.ptx")
	b, err := exec.Command(llc, gatherLLCArgs(filepath.Join("kernels", "gather.ll"), out)...).CombinedOutput()
	if bytes.Contains(b, []byte("invalid target")) || bytes.Contains(b, []byte("No available targets")) {
		t.Skipf("this llc has no NVPTX backend: %s", b)
	}
	require.NoError(t, err, "%s", b)
	want, err := os.ReadFile(out)
	require.NoError(t, err)
	assert.Equal(t, string(want), string(gatherPTX), "run make tensorrt-ptx and commit kernels/gather.ptx")
	assert.Contains(t, string(gatherPTX), ".entry "+gatherKernel+"(")
}

// gatherLLCArgs are the llc arguments that turn gather.ll into gather.ptx
// (mk/accel.mk's tensorrt-ptx uses the same): PTX for sm_52, which the
// driver compiles for any newer GPU.
func gatherLLCArgs(in, out string) []string {
	return []string{"-march=nvptx64", "-mcpu=sm_52", "-O3", in, "-o", out}
}
