package backend

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/engine"
)

// The files of a model of two graphs given as a directory: an encoder
// and a decoder with a key-value cache, as Hugging Face optimum exports
// Whisper (its decoder_model.onnx and decoder_with_past_model.onnx are
// not read: the merged decoder is both).
const (
	encoderFile = "encoder_model.onnx"
	decoderFile = "decoder_model_merged.onnx"
)

// readModel reads a model file, or a directory's encoder and decoder
// (decoder nil for a file), and returns the directory their external
// data files are relative to (the file's, or the directory itself).
func readModel(path string) (data, decoder []byte, dir string, err error) {
	if path, err = filepath.Abs(path); err != nil {
		return nil, nil, "", err
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil, nil, "", err
	}
	if !st.IsDir() {
		data, err = os.ReadFile(path)
		return data, nil, filepath.Dir(path), err
	}
	if data, err = os.ReadFile(filepath.Join(path, encoderFile)); err == nil {
		decoder, err = os.ReadFile(filepath.Join(path, decoderFile))
	}
	if err != nil {
		return nil, nil, "", fmt.Errorf("directory %s: want %s and %s (an encoder and a decoder with a key-value cache, optimum's export): %w",
			path, encoderFile, decoderFile, err)
	}
	return data, decoder, path, nil
}

// otherEngineHint tells how to run a model the go engine cannot (an
// operator it lacks, as a key-value-cache decoder's) on the ort engine,
// when this build has it; "" otherwise.
func (b *Backend) otherEngineHint(cfg config, err error) string {
	if _, ok := b.engines["ort"]; !ok || cfg.engine == "ort" || !errors.Is(err, engine.ErrUnsupported) {
		return ""
	}
	return fmt.Sprintf(" (the ort engine runs the operators and types of ONNX Runtime: --set %s.%s=ort)", b.setup.Name, OptEngine)
}
