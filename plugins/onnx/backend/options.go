package backend

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// The plugin options the backend reads from sdk.Model.Options ("--set
// onnx.<key>=<value>"). Every other key is passed to the engine as
// engine.Options.Extra.
const (
	// OptEngine selects the engine by name: "go" or "ort". Unset, the
	// backend's default engine serves the model ([Config]).
	OptEngine = "engine"
	// OptThreads is the number of threads one inference may use; 0 (the
	// default) lets the engine choose.
	OptThreads = "threads"
	// OptBatch is the largest number of samples run together; a query
	// with more samples runs in several batches. Default 32.
	OptBatch = "batch"
	// OptInstances is the number of sessions, hence of Infer calls that
	// run at once. Default 1.
	OptInstances = "instances"
	// OptResponse is what a sample's response holds (the Response*
	// constants): unset, the benchmark's (resnet50 class, retinanet
	// detections, bert squad, 3d-unet segmentation, dlrm-v2 dlrm, dlrm-v3
	// dlrmv3, the LLMs tokens), and outputs for any other (every output's slice).
	OptResponse = "response"
	// OptClassOutput names the output the class comes from with
	// response=class: one class per sample (an ArgMax output) or scores
	// whose first highest is the class. Default: the model's first output.
	OptClassOutput = "class_output"
	// OptClassOffset is added to the class with response=class: -1 for a
	// model whose class 0 is "background" (MLPerf's 1001-class ResNet-50
	// graphs), 0 otherwise. Unset: -1 when an output has 1001 scores per
	// sample, else 0.
	OptClassOffset = "class_offset"
	// OptScoreThreshold is the lowest score of a detection with
	// response=detections (the reference's 0.05 by default).
	OptScoreThreshold = "score_threshold"
	// OptLabelTensor names the data set tensor whose values response=dlrm
	// answers beside each probability (default "labels").
	OptLabelTensor = "label_tensor"
	// OptMaxNewTokens bounds the tokens response=tokens generates per
	// sample (default: the benchmark's reference generation length, else
	// 128).
	OptMaxNewTokens = "max_new_tokens"
	// OptEOSTokenID lists the token ids (comma-separated) that end a
	// generation with response=tokens; the EOS token is answered as the
	// last token. Default: the benchmark's model's (llama2-70b 2, the
	// Llama 3.1 models 128001,128008,128009), else none.
	OptEOSTokenID = "eos_token_id"
	// OptDecoderPrompt lists the token ids (comma-separated) that start
	// every generation with response=transcript. Default: the
	// benchmark's (whisper: whisper-large-v3's <|startoftranscript|>
	// <|en|><|transcribe|><|notimestamps|>, the reference's prompt).
	OptDecoderPrompt = "decoder_prompt"
	// OptTokenizer names the tokenizer.json (byte-level BPE, as
	// Whisper's) whose vocabulary turns the tokens of response=transcript
	// into text. Unset, a token id below 42 is the alphabet's index.
	OptTokenizer = "tokenizer"
)

// config is the parsed options.
type config struct {
	engine string
	// engineSet: the engine option named the engine (no fallback then).
	engineSet bool
	threads   int
	batch     int
	instances int
	extra     map[string]string

	response    string
	classOutput string
	classOffset int
	// classOffsetSet: the class_offset option was given.
	classOffsetSet bool

	scoreThreshold float64
	labelTensor    string
	labelTensorSet bool
	maxNewTokens   int
	eos            []int64
	decoderPrompt  []int64
	tokenizer      string
	// anyShape: the engine must take any size of the free dimensions
	// (engine.Options.MaxBatch 0), not at most batch: rows, sequences,
	// windows.
	anyShape bool
}

const (
	defaultBatch          = 32
	defaultScoreThreshold = 0.05
	defaultMaxNewTokens   = 128
	maxBatch              = 1 << 16
	maxInstances          = 1024
)

// parseOptions reads the backend's options and collects the rest for the
// engine; the engine is defaultEngine unless an option names one. Errors
// name every bad option.
func parseOptions(opts map[string]string, maxInFlight int, defaultEngine string) (config, error) {
	c := config{engine: defaultEngine, batch: defaultBatch, instances: 1, extra: map[string]string{},
		scoreThreshold: defaultScoreThreshold, labelTensor: "labels", maxNewTokens: defaultMaxNewTokens}
	var errs []error
	num := func(key string, lo, hi int, dst *int) {
		v, ok := opts[key]
		if !ok {
			return
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < lo || n > hi {
			errs = append(errs, fmt.Errorf("option %s=%q: want an integer from %d to %d", key, v, lo, hi))
			return
		}
		*dst = n
	}
	for k, v := range opts {
		switch k {
		case OptEngine:
			c.engine, c.engineSet = v, true
		case OptResponse:
			c.response = v
		case OptClassOutput:
			c.classOutput = v
		case OptLabelTensor:
			c.labelTensor, c.labelTensorSet = v, true
		case OptScoreThreshold:
			f, err := strconv.ParseFloat(v, 64)
			if err != nil || f != f {
				errs = append(errs, fmt.Errorf("option %s=%q: want a number", k, v))
			}
			c.scoreThreshold = f
		case OptEOSTokenID, OptDecoderPrompt:
			ids, err := parseTokenIDs(v)
			if err != nil {
				errs = append(errs, fmt.Errorf("option %s=%q: %w", k, v, err))
			}
			if k == OptEOSTokenID {
				c.eos = ids
			} else {
				c.decoderPrompt = ids
			}
		case OptTokenizer:
			c.tokenizer = v
		case OptThreads, OptBatch, OptInstances, OptClassOffset, OptMaxNewTokens:
		default:
			c.extra[k] = v
		}
	}
	num(OptThreads, 0, 4096, &c.threads)
	num(OptBatch, 1, maxBatch, &c.batch)
	num(OptInstances, 1, min(maxInstances, maxInFlight), &c.instances)
	num(OptClassOffset, -1<<20, 1<<20, &c.classOffset)
	num(OptMaxNewTokens, 1, 1<<20, &c.maxNewTokens)
	_, c.classOffsetSet = opts[OptClassOffset]
	return c, errors.Join(errs...)
}

// parseTokenIDs reads a comma-separated list of token ids; "" is none.
func parseTokenIDs(v string) ([]int64, error) {
	var ids []int64
	for _, f := range strings.Split(v, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		n, err := strconv.ParseInt(f, 10, 64)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("want token ids, comma-separated")
		}
		ids = append(ids, n)
	}
	return ids, nil
}
