// Command tinyllama writes the tests' tiny llama model (package
// internal/tinyllama) into a directory: model.gguf, tokenizer.json and an
// Ollama Modelfile, random weights from the seed.
//
// Usage:
//
//	tinyllama -dir DIR [-seed S]
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/mlperf-host/mlperf-host/internal/tinyllama"
)

func main() {
	dir := flag.String("dir", "", "directory to write the model into (created if missing)")
	seed := flag.Uint64("seed", 1, "seed of the random weights")
	flag.Parse()
	if *dir == "" || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: tinyllama -dir DIR [-seed S]")
		os.Exit(2)
	}
	if err := tinyllama.Write(*dir, tinyllama.DefaultConfig(*seed)); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
