// Package unet3d is the 3D-UNet benchmark (medical image segmentation on
// KiTS 2019): the data set as the reference's preprocess.py writes it
// ([Reader]: one pickle per case, [image, label], read with package
// pickle; preprocessed_files.pkl its order), the response the official
// script reads (one class per voxel of the case, uint8 by default), its
// scorer ([Scorer]: accuracy_kits.py's mean DICE against the NIfTI
// segmentations, nifti.go) and the fixtures the end-to-end tests run
// ([WriteKiTS]).
//
// Package unet3d imports only the standard library and the shared parts
// (dataset, accuracy, benchmarks, internal/benchlib); it must never
// import another benchmark's package, the registry (internal/bench),
// host, loadgen, sdk, plugins or cmd.
package unet3d
