// Package wan is the text-to-video benchmark wan-2.2-t2v-a14b (Wan2.2
// T2V-A14B, scored by VBench): the data set as the reference reads it
// ([Reader]: data/vbench_prompts.txt, one prompt a line, and the fixed
// latent every generation starts from, data/fixed_latent.pt, a
// torch.save tensor), the response the reference SUT logs ([Response]:
// the pipeline's frames, float32 [frames, height, width, 3] in [0, 1]),
// the decoding of an accuracy log into what the official evaluation
// reads ([WriteVideos]: each video's frames as export_to_video converts
// them, and the ffmpeg commands that encode them as it does), the
// official evaluation's command ([Command]) and the fixtures the tests
// run ([WriteData]).
//
// VBench's metric networks (DINO, RAFT, AMT, CLIP, Tag2Text, ...) cannot
// run in mlperf-host: its [Scorer] checks and decodes the log and says so;
// it never reports a score.
//
// Package wan imports only the standard library and the shared parts
// (dataset, accuracy, benchmarks, internal/benchlib); it must never
// import another benchmark's package, the registry (internal/bench),
// host, loadgen, sdk, plugins or cmd.
package wan
