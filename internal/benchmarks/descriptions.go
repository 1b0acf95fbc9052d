package benchmarks

import "strings"

// descriptions are the task, model and data set of the MLPerf benchmarks,
// for people: the rules' tables name benchmarks only by their key. A
// benchmark not listed is described by its name.
var descriptions = map[string][3]string{
	"resnet":              {"image classification", "ResNet50-v1.5", "ImageNet 2012 validation"},
	"retinanet":           {"object detection", "RetinaNet", "OpenImages"},
	"bert":                {"question answering", "BERT-large", "SQuAD v1.1"},
	"dlrm-v2":             {"recommendation", "DLRM-DCNv2", "Criteo multi-hot"},
	"3d-unet":             {"medical image segmentation", "3D-UNet", "KiTS 2019"},
	"llama3.1-8b":         {"summarization", "Llama 3.1 8B", "CNN-DailyMail"},
	"llama2-70b":          {"question answering", "Llama 2 70B", "OpenOrca"},
	"stable-diffusion-xl": {"text to image", "SDXL 1.0", "COCO-2014"},
	"mixtral-8x7b":        {"mixture of experts LLM", "Mixtral 8x7B", "OpenOrca, GSM8K, MBXP"},
	"llama3.1-405b":       {"LLM", "Llama 3.1 405B", ""},
	"rgat":                {"graph node classification", "R-GAT", "IGBH"},
	"pointpainting":       {"3D object detection", "PointPainting", ""},
	"deepseek-r1":         {"reasoning LLM", "DeepSeek-R1", ""},
	"whisper":             {"speech to text", "Whisper", "LibriSpeech"},
	"gpt-oss-120b":        {"reasoning LLM", "gpt-oss-120b", ""},
	"wan-2.2-t2v-a14b":    {"text to video", "Wan 2.2 T2V A14B", ""},
	"qwen3-vl-235b-a22b":  {"vision-language model", "Qwen3-VL-235B-A22B", ""},
	"yolo":                {"object detection", "YOLO", ""},
}

// describe fills b's Task, Model and Dataset, and its EOSTokenIDs: the
// entries of its submission name, or of the name without an
// accuracy-level or edge suffix ("bert-99.9" is "bert").
func describe(b *Benchmark) {
	key, ok := descriptionKey(b.SubmissionName)
	if !ok {
		b.Model = b.SubmissionName
		return
	}
	d := descriptions[key]
	b.Task, b.Model, b.Dataset = d[0], d[1], d[2]
	b.EOSTokenIDs = eosTokenIDs[key]
}

// descriptionKey returns the key of descriptions that describes the
// benchmark of submission name name.
func descriptionKey(name string) (string, bool) {
	key := name
	for _, suffix := range []string{"-99.9", "-99", "-95", "-edge"} {
		if _, ok := descriptions[key]; ok {
			return key, true
		}
		key = strings.TrimSuffix(key, suffix)
	}
	_, ok := descriptions[key]
	return key, ok
}
