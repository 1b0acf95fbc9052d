package tinyllama

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"

	"github.com/mlperf-host/mlperf-host/internal/benchlib/hftokenizer"
)

// The files [Write] writes in its directory.
const (
	ModelFile     = "model.gguf"
	TokenizerFile = "tokenizer.json"
	Modelfile     = "Modelfile"
)

// Write writes the model of c into dir (created if missing): [ModelFile],
// [TokenizerFile] and an Ollama [Modelfile] that serves the model with
// the prompt as it is (no template) and greedy decoding.
//
// # Errors
//
// An invalid c, and the file system's errors.
func Write(dir string, c Config) error {
	f, err := GGUF(c)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("tiny llama: %w", err)
	}
	out, err := os.Create(filepath.Join(dir, ModelFile))
	if err != nil {
		return fmt.Errorf("tiny llama: %w", err)
	}
	w := bufio.NewWriter(out)
	_, err = f.WriteTo(w)
	if err == nil {
		err = w.Flush()
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("tiny llama: write %s: %w", ModelFile, err)
	}
	if err := hftokenizer.WriteSentencePiece(filepath.Join(dir, TokenizerFile), Vocab(), Specials(), "<unk>"); err != nil {
		return fmt.Errorf("tiny llama: write %s: %w", TokenizerFile, err)
	}
	mf := "FROM ./" + ModelFile + "\nTEMPLATE \"{{ .Prompt }}\"\nPARAMETER temperature 0\n"
	if err := os.WriteFile(filepath.Join(dir, Modelfile), []byte(mf), 0o644); err != nil {
		return fmt.Errorf("tiny llama: write %s: %w", Modelfile, err)
	}
	return nil
}
