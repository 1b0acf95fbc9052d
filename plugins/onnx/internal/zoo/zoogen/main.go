// Command zoogen writes the zoo's models: go run
// ./plugins/onnx/internal/zoo/zoogen [flags] DIR [NAME...]. Without names
// it writes the random-weight ResNet-50 v1.5 and MobileNetV2; the
// benchmark signature models (resnet50-signature, retinanet-signature,
// bert-signature, unet3d-signature, dlrm-signature, dlrmv3-signature, decoder-signature,
// whisper-signature, yolo-signature, rgat-signature, wan-signature, and with a key-value cache decoder-kv-signature,
// whisper-kv-signature/encoder_model and
// whisper-kv-signature/decoder_model_merged, a directory as optimum
// exports Whisper) have an MLPerf benchmark model's inputs and outputs and read the answer
// the tests' generated data sets encode (zoo/bench.go).
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/zoo"
)

func main() {
	detections := flag.Int("retinanet-detections", 8, "detections of retinanet-signature")
	answerFrom := flag.Int64("bert-answer-from", 1000, "first answer token id of bert-signature")
	roi := flag.Int64("unet-roi", 128, "window edge of unet3d-signature")
	vocab := flag.Int("decoder-vocab", 1000, "vocabulary of decoder-signature")
	mels := flag.Int64("whisper-mels", 128, "mel bins of whisper-signature's features")
	features := flag.Int64("rgat-features", 1024, "node features of rgat-signature (IGBH's 1024)")
	sdxlSize := flag.Int("sdxl-size", 1024, "image height and width of sdxl-signature (a multiple of 8)")
	external := flag.Bool("external-data", false, "write each model's weights to NAME.onnx_data beside it (external data; none for a model without weights of 64 bytes or more)")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: zoogen [flags] DIR [NAME...]")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() < 1 {
		flag.Usage()
		os.Exit(2)
	}
	models := map[string]func() []byte{
		"resnet50":             func() []byte { return zoo.ResNet50(1) },
		"mobilenetv2":          func() []byte { return zoo.MobileNetV2(1) },
		"resnet50-signature":   zoo.ResNet50Signature,
		"retinanet-signature":  func() []byte { return zoo.RetinaNetSignature(*detections) },
		"bert-signature":       func() []byte { return zoo.BERTSignature(*answerFrom) },
		"unet3d-signature":     func() []byte { return zoo.UNet3DSignature(*roi) },
		"dlrm-signature":       zoo.DLRMSignature,
		"dlrmv3-signature":     zoo.DLRMv3Signature,
		"yolo-signature":       zoo.YOLOSignature,
		"rgat-signature":       func() []byte { return zoo.RGATSignature(*features) },
		"sdxl-signature":       func() []byte { return zoo.SDXLSignature(*sdxlSize) },
		"wan-signature":        func() []byte { return zoo.WanSignature(2, 1, 1) },
		"decoder-signature":    func() []byte { return zoo.DecoderSignature(*vocab) },
		"whisper-signature":    func() []byte { return zoo.WhisperSignature(*mels) },
		"decoder-kv-signature": func() []byte { return zoo.DecoderKVSignature(*vocab, 2) },
		// Whisper as optimum exports it: a directory of two graphs.
		"whisper-kv-signature/encoder_model":        func() []byte { return zoo.WhisperEncoderSignature(*mels) },
		"whisper-kv-signature/decoder_model_merged": zoo.WhisperDecoderKVSignature,
	}
	dir, names := flag.Arg(0), flag.Args()[1:]
	if len(names) == 0 {
		names = []string{"resnet50", "mobilenetv2"}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for _, name := range names {
		m, ok := models[name]
		if !ok {
			known := make([]string, 0, len(models))
			for k := range models {
				known = append(known, k)
			}
			sort.Strings(known)
			fmt.Fprintf(os.Stderr, "zoogen: no model %q: want one of %v\n", name, known)
			os.Exit(2)
		}
		path := filepath.Join(dir, name+".onnx")
		b := m()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		if *external {
			var data []byte
			var err error
			if b, data, err = zoo.WithExternalData(b, filepath.Base(name)+".onnx_data"); err == nil && len(data) > 0 {
				err = os.WriteFile(path+"_data", data, 0o644)
			}
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Printf("wrote %s (%d KiB)\n", path, len(b)>>10)
	}
}
