// Package sdxl is the Stable Diffusion XL benchmark (stable-diffusion-xl:
// text to image on a 5000-caption subset of COCO 2014): the data set as
// the reference reads it ([Reader]: captions/captions.tsv and the fixed
// latents, latents/latents.pt or latents.npy), the response the official
// script reads ([Response]: the image as uint8 [height, width, 3]), the
// images it writes from the accuracy log ([WriteImages]: the compliance
// images, those a round's submission checker requires
// ([ComplianceIDsOf]), and their captions.txt), the metrics computed from what the
// networks give ([FID] from Inception-v3 features and statistics,
// [CLIPScore] from CLIP embeddings), the official scorer's command
// ([Command]) and the fixtures the tests run ([WriteCOCO]).
//
// Package sdxl imports only the standard library and the shared parts
// (dataset, accuracy, benchmarks, internal/benchlib); it must never
// import another benchmark's package, the registry (internal/bench),
// host, loadgen, sdk, plugins or cmd.
package sdxl
