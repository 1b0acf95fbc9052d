package backend

import "strings"

// benchmarkDefaults fills in what the options leave unset from the
// benchmark the host runs (sdk.Run.Benchmark, the mlperf.conf model name):
// the response its reference SUT writes, and an LLM's reference
// generation length and end-of-sequence tokens.
func benchmarkDefaults(c *config, benchmark string, opts map[string]string) {
	if _, ok := opts[OptResponse]; !ok {
		c.response = benchmarkResponse(benchmark)
	}
	model := llmModel(benchmark)
	if benchmark == "whisper" {
		model = benchmark
	}
	if _, ok := opts[OptMaxNewTokens]; !ok {
		if n, ok := referenceMaxNewTokens[model]; ok {
			c.maxNewTokens = n
		}
	}
	if _, ok := opts[OptEOSTokenID]; !ok {
		c.eos = referenceEOS[model]
	}
	if _, ok := opts[OptDecoderPrompt]; !ok && benchmark == "whisper" {
		c.decoderPrompt = whisperPrompt
	}
}

// whisperPrompt is the reference's decoder prompt in whisper-large-v3's
// ids: <|startoftranscript|><|en|><|transcribe|><|notimestamps|>.
var whisperPrompt = []int64{50258, 50259, 50360, 50364}

// benchmarkResponse is the response of a benchmark's reference SUT.
func benchmarkResponse(benchmark string) string {
	switch {
	case benchmark == "resnet50":
		return ResponseClass
	case benchmark == "retinanet":
		return ResponseDetections
	case benchmark == "yolo":
		return ResponseYOLO
	case benchmark == "bert":
		return ResponseSQuAD
	case benchmark == "3d-unet":
		return ResponseSegmentation
	case benchmark == "dlrm-v2":
		return ResponseDLRM
	case benchmark == "dlrm-v3":
		return ResponseDLRMv3
	case benchmark == "stable-diffusion-xl":
		return ResponseSDXL
	case llmModel(benchmark) != "":
		return ResponseTokens
	case benchmark == "whisper":
		return ResponseTranscript
	}
	return ResponseOutputs
}

// llmModel returns the model family of an LLM benchmark's mlperf.conf
// name ("llama3_1-8b-edge" is "llama3_1"), or "" for other benchmarks.
func llmModel(benchmark string) string {
	for _, p := range []string{"llama2", "llama3_1", "mixtral", "deepseek", "gpt-oss", "qwen"} {
		if strings.HasPrefix(benchmark, p) {
			return p
		}
	}
	return ""
}

// referenceMaxNewTokens are the reference SUTs' generation lengths:
// llama2-70b's max_new_tokens, llama3.1's and whisper's max_tokens.
var referenceMaxNewTokens = map[string]int{"llama2": 1024, "llama3_1": 128, "mixtral": 1024, "whisper": 200}

// referenceEOS are the end-of-sequence tokens of the benchmarks' models:
// Llama 2's </s>, Llama 3.1 Instruct's <|end_of_text|>, <|eom_id|> and
// <|eot_id|> (its generation_config.json), whisper-large-v3's
// <|endoftext|>.
var referenceEOS = map[string][]int64{"llama2": {2}, "llama3_1": {128001, 128008, 128009}, "mixtral": {2}, "whisper": {50257}}
