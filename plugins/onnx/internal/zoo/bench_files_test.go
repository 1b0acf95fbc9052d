package zoo

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBenchmarkModelFiles: the signature models the command's end-to-end
// tests load (cmd/mlperf-host/testdata/benchmarks, written by zoogen with
// the flags of its README) are what the zoo builds.
func TestBenchmarkModelFiles(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("..", "..", "..", "..", "cmd", "mlperf-host", "testdata", "benchmarks")
	for name, model := range map[string][]byte{
		"resnet50-signature":   ResNet50Signature(),
		"retinanet-signature":  RetinaNetSignature(8),
		"bert-signature":       BERTSignature(100),
		"unet3d-signature":     UNet3DSignature(8),
		"dlrm-signature":       DLRMSignature(),
		"decoder-signature":    DecoderSignature(64),
		"whisper-signature":    WhisperSignature(80),
		"decoder-kv-signature": DecoderKVSignature(64, 2),
		// Whisper as optimum exports it: a directory of two graphs.
		"whisper-kv-signature/encoder_model":        WhisperEncoderSignature(80),
		"whisper-kv-signature/decoder_model_merged": WhisperDecoderKVSignature(),
	} {
		b, err := os.ReadFile(filepath.Join(dir, name+".onnx"))
		require.NoError(t, err)
		assert.True(t, bytes.Equal(model, b), "%s.onnx is not what the zoo builds: rewrite it (README.md)", name)
	}
}
