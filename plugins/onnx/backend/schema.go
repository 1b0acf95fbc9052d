package backend

import (
	"strconv"
	"strings"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/engine"
	"github.com/mlperf-host/mlperf-host/sdk"
)

// optionSchema is the backend's option schema (sdk.Info.Options): its own
// options, then those of each engine that describes its own, engines in
// name order. The engine option has no default, so that a model whose
// options name no engine can fall back ([Config.Fallback]).
func (b *Backend) optionSchema() []sdk.Option {
	names := b.engineNames()
	engineDoc := strings.Join(names, " or ") + "; unset: " + b.setup.Engine
	if b.setup.Fallback != "" {
		engineDoc += ", or " + b.setup.Fallback + " when " + b.setup.Engine + " is unavailable"
	}
	opts := []sdk.Option{
		{Name: OptEngine, Type: abi.OptionEnum, Allowed: names, Doc: engineDoc},
		{Name: OptThreads, Type: abi.OptionUint, Default: "0",
			Doc: "threads one inference may use (ONNX Runtime's intra-op threads, the go engine's workers); 0 lets the engine choose"},
		{Name: OptBatch, Type: abi.OptionUint, Default: strconv.Itoa(defaultBatch), Doc: "most samples run together; larger queries run in several batches"},
		{Name: OptInstances, Type: abi.OptionUint, Default: "1", Doc: "sessions, hence Infer calls that run at once"},
		{Name: OptResponse, Type: abi.OptionEnum, Allowed: responses(),
			Doc: "a response as the benchmark's reference SUT writes it (docs/onnx.md); unset: the benchmark's, outputs for others"},
		{Name: OptClassOutput, Type: abi.OptionString, Doc: "with response=class: the output the class comes from (default: the first)"},
		{Name: OptClassOffset, Type: abi.OptionInt,
			Doc: "with response=class: added to the class; unset: -1 for a model with 1001 scores (background first), else 0"},
		{Name: OptScoreThreshold, Type: abi.OptionFloat, Default: strconv.FormatFloat(defaultScoreThreshold, 'g', -1, 64),
			Doc: "with response=detections: the lowest score answered"},
		{Name: OptLabelTensor, Type: abi.OptionString, Default: "labels", Doc: "with response=dlrm: the data set tensor answered beside each probability"},
		{Name: OptMaxNewTokens, Type: abi.OptionUint, Doc: "with response=tokens or transcript: most tokens generated; unset: the benchmark's reference length, else 128"},
		{Name: OptEOSTokenID, Type: abi.OptionString, Doc: "with response=tokens or transcript: end-of-sequence token ids, comma-separated; unset: the benchmark's model's"},
		{Name: OptTokenizer, Type: abi.OptionPath, Doc: "with response=transcript: a byte-level BPE tokenizer.json (Whisper's) that turns the tokens into text; unset: a token id below 42 is the alphabet's index"},
		{Name: OptDecoderPrompt, Type: abi.OptionString, Doc: "with response=transcript: the token ids that start every generation, comma-separated; unset: the benchmark's (whisper-large-v3's)"},
	}
	declared := map[string]bool{}
	for _, o := range opts {
		declared[o.Name] = true
	}
	for _, name := range names {
		d, ok := b.engines[name].(engine.Describer)
		if !ok {
			continue
		}
		for _, s := range d.OptionSpecs() {
			if !declared[s.Name] {
				declared[s.Name] = true
				opts = append(opts, sdk.Option{Name: s.Name, Type: abi.OptionType(s.Type), Default: s.Default, Allowed: s.Allowed, Doc: s.Doc})
			}
		}
	}
	return opts
}
