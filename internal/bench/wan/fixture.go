package wan

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"

	"github.com/mlperf-host/mlperf-host/internal/benchlib/torchpt"
)

// WriteData writes a data directory in the reference's form: the
// prompts one a line (vbench_prompts.txt) and a fixed latent of shape
// [1, 16, latentFrames, h, w] (fixed_latent.pt, as torch.save writes a
// float32 tensor), standard normal values from seed as the reference's
// torch.randn.
func WriteData(dir string, prompts []string, latentFrames, h, w int, seed uint64) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, PromptsFile), []byte(strings.Join(prompts, "\n")+"\n"), 0o644); err != nil {
		return err
	}
	shape := []int{1, LatentChannels, latentFrames, h, w}
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	v := make([]float32, torchpt.Elements(shape))
	for i := range v {
		v[i] = float32(rng.NormFloat64())
	}
	var b bytes.Buffer
	if err := torchpt.Write(&b, "fixed_latent", shape, v); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, LatentFile), b.Bytes(), 0o644)
}

// FixturePrompts are the test data sets' prompts, VBench's in style, one
// with a quote that the encoding script must quote.
var FixturePrompts = []string{
	"a cat drinking water",
	"A panda drinking coffee in a cafe in Paris, watercolor painting",
	"a person's dog running on the beach",
	"The bund Shanghai, black and white",
	"a car turning a corner",
}
