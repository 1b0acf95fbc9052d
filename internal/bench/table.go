package bench

import (
	"github.com/mlperf-host/mlperf-host/internal/accuracy"
	"github.com/mlperf-host/mlperf-host/internal/bench/bert"
	"github.com/mlperf-host/mlperf-host/internal/bench/deepseekr1"
	"github.com/mlperf-host/mlperf-host/internal/bench/dlrmv2"
	"github.com/mlperf-host/mlperf-host/internal/bench/dlrmv3"
	"github.com/mlperf-host/mlperf-host/internal/bench/gptoss"
	"github.com/mlperf-host/mlperf-host/internal/bench/llama405b"
	"github.com/mlperf-host/mlperf-host/internal/bench/llm"
	"github.com/mlperf-host/mlperf-host/internal/bench/mixtral"
	"github.com/mlperf-host/mlperf-host/internal/bench/qwen3vl"
	"github.com/mlperf-host/mlperf-host/internal/bench/resnet"
	"github.com/mlperf-host/mlperf-host/internal/bench/retinanet"
	"github.com/mlperf-host/mlperf-host/internal/bench/rgat"
	"github.com/mlperf-host/mlperf-host/internal/bench/sdxl"
	"github.com/mlperf-host/mlperf-host/internal/bench/unet3d"
	"github.com/mlperf-host/mlperf-host/internal/bench/wan"
	"github.com/mlperf-host/mlperf-host/internal/bench/whisper"
	"github.com/mlperf-host/mlperf-host/internal/bench/yolo"
	"github.com/mlperf-host/mlperf-host/internal/benchmarks"
	"github.com/mlperf-host/mlperf-host/internal/dataset"
)

// Row is one benchmark mlperf-host reads and scores.
type Row struct {
	// Names are the LoadGen model names (mlperf.conf's, a round row's
	// Benchmark.Name) the row serves: every accuracy level and category
	// of the benchmark ("bert" serves bert-99 and bert-99.9).
	Names []string
	// Package is the benchmark's package under internal/bench.
	Package string
	// Readers open its data set in the reference forms, tried by [Open]
	// in table order (a reader marked Last after the others); none where
	// package dataset's forms are the reference's (ImageNet's .npy
	// directory).
	Readers []dataset.Reader
	// Scorer scores its accuracy logs as the official script does; nil
	// for a classifier, which the runner scores top-1 against the data
	// set's labels.
	Scorer *accuracy.Scorer
	// Response is what a response holds, as the official script reads
	// it: the first words of the section's **Response**.
	Response string
	// Doc is the heading of its section of docs/benchmarks.md.
	Doc string
}

// table is the registry: a benchmark is its package, its row here and its
// section of docs/benchmarks.md. `accuracy --scorer` lists the scorers in
// table order.
var table = []Row{
	{Names: []string{"resnet50"}, Package: "resnet", Response: resnet.Response, Doc: "resnet (resnet50) and the fashion-mnist demo"},
	{Names: []string{benchmarks.DemoName}, Package: "resnet", Response: resnet.Response, Doc: "resnet (resnet50) and the fashion-mnist demo"},
	{Names: []string{"retinanet"}, Package: "retinanet", Response: retinanet.Response, Doc: "retinanet",
		Readers: []dataset.Reader{retinanet.Reader}, Scorer: &retinanet.Scorer},
	{Names: []string{"3d-unet"}, Package: "unet3d", Response: unet3d.Response, Doc: "3d-unet-99",
		Readers: []dataset.Reader{unet3d.Reader}, Scorer: &unet3d.Scorer},
	{Names: []string{"dlrm-v2"}, Package: "dlrmv2", Response: dlrmv2.Response, Doc: "dlrm-v2-99",
		Readers: []dataset.Reader{dlrmv2.Reader}, Scorer: &dlrmv2.Scorer},
	{Names: []string{"dlrm-v3"}, Package: "dlrmv3", Response: dlrmv3.Response, Doc: "dlrm-v3",
		Readers: []dataset.Reader{dlrmv3.Reader}, Scorer: &dlrmv3.Scorer},
	{Names: []string{"bert"}, Package: "bert", Response: bert.Response, Doc: "bert-99",
		Readers: []dataset.Reader{bert.Reader}, Scorer: &bert.Scorer},
	{Names: []string{"llama2-70b"}, Package: "llm", Response: llm.Response, Doc: "llama2-70b, llama3.1-8b",
		Readers: []dataset.Reader{llm.PickleReader, llm.Reader}, Scorer: &llm.ROUGEScorer},
	{Names: []string{"llama3_1-8b", "llama3_1-8b-edge"}, Package: "llm", Response: llm.Response, Doc: "llama2-70b, llama3.1-8b",
		Readers: []dataset.Reader{llm.Reader}, Scorer: &llm.CNNDMScorer},
	{Names: []string{"mixtral-8x7b"}, Package: "mixtral", Response: mixtral.Response, Doc: "mixtral-8x7b",
		Readers: []dataset.Reader{mixtral.Reader}, Scorer: &mixtral.Scorer},
	{Names: []string{"llama3_1-405b"}, Package: "llama405b", Response: llama405b.Response, Doc: "llama3.1-405b",
		Readers: []dataset.Reader{llama405b.Reader}, Scorer: &llama405b.Scorer},
	{Names: []string{"deepseek-r1"}, Package: "deepseekr1", Response: deepseekr1.Response, Doc: "deepseek-r1",
		Readers: []dataset.Reader{deepseekr1.Reader}, Scorer: &deepseekr1.Scorer},
	{Names: []string{"gpt-oss-120b"}, Package: "gptoss", Response: gptoss.Response, Doc: "gpt-oss-120b",
		Readers: []dataset.Reader{gptoss.Reader}, Scorer: &gptoss.Scorer},
	{Names: []string{"whisper"}, Package: "whisper", Response: whisper.Response, Doc: "whisper",
		Readers: []dataset.Reader{whisper.Reader}, Scorer: &whisper.Scorer},
	{Names: []string{"yolo"}, Package: "yolo", Response: yolo.Response, Doc: "yolo-95, yolo-99",
		Readers: []dataset.Reader{yolo.Reader}, Scorer: &yolo.Scorer},
	{Names: []string{"rgat"}, Package: "rgat", Response: rgat.Response, Doc: "rgat",
		Readers: []dataset.Reader{rgat.Reader}, Scorer: &rgat.Scorer},
	{Names: []string{"qwen3-vl-235b-a22b"}, Package: "qwen3vl", Response: qwen3vl.Response, Doc: "qwen3-vl-235b-a22b",
		Readers: []dataset.Reader{qwen3vl.Reader}, Scorer: &qwen3vl.Scorer},
	{Names: []string{"stable-diffusion-xl"}, Package: "sdxl", Response: sdxl.Response, Doc: "stable-diffusion-xl",
		Readers: []dataset.Reader{sdxl.Reader}, Scorer: &sdxl.Scorer},
	{Names: []string{"wan-2.2-t2v-a14b"}, Package: "wan", Response: wan.Response, Doc: "wan-2.2-t2v-a14b",
		Readers: []dataset.Reader{wan.Reader}, Scorer: &wan.Scorer},
}
