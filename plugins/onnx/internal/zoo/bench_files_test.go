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
		"dlrmv3-signature":     DLRMv3Signature(),
		"yolo-signature":       YOLOSignature(),
		"rgat-signature":       RGATSignature(1024),
		"sdxl-signature":       SDXLSignature(16),
		"wan-signature":        WanSignature(2, 1, 1),
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
	// The key-value-cache models again with their weights in external
	// data files beside them (zoogen -external-data); the Whisper
	// encoder's constants are all small, so it has none, as optimum's
	// small graphs have none.
	for name, model := range map[string][]byte{
		"decoder-kv-signature":                      DecoderKVSignature(64, 2),
		"whisper-kv-signature/encoder_model":        WhisperEncoderSignature(80),
		"whisper-kv-signature/decoder_model_merged": WhisperDecoderKVSignature(),
	} {
		graph, data, err := WithExternalData(model, filepath.Base(name)+".onnx_data")
		require.NoError(t, err)
		path := filepath.Join(dir, "external", name+".onnx")
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		assert.True(t, bytes.Equal(graph, b), "external/%s.onnx is not what the zoo builds: rewrite it (README.md)", name)
		b, err = os.ReadFile(path + "_data")
		if len(data) == 0 {
			assert.ErrorIs(t, err, os.ErrNotExist, "external/%s.onnx_data", name)
			continue
		}
		require.NoError(t, err)
		assert.True(t, bytes.Equal(data, b), "external/%s.onnx_data is not what the zoo builds: rewrite it (README.md)", name)
	}
}
