// Package torchpt reads and writes the file torch.save writes of one
// tensor (a .pt file): a zip archive, each entry stored, of
// <name>/data.pkl (a protocol-2 pickle rebuilding the tensor with
// torch._utils._rebuild_tensor_v2 from a storage it names by persistent
// id), <name>/byteorder ("little") and <name>/data/<key> (the storage's
// elements). [Read] reads float32, float16 and bfloat16 tensors into
// float32 values and int64 and int32 tensors into int64 values (the
// pickle through internal/benchlib/pickle, which calls nothing it names),
// refusing other storage classes and views that are not contiguous by
// name, and [ReadFile] reads a file; [Write], [WriteInt64] and
// [WriteStorage] write a tensor as torch.save does, byte for byte, for
// fixtures. It is the one torch.save reader and writer: the rooms that
// read .pt files (rgat's val_idx.pt, sdxl's latents.pt, wan's fixed
// latent) call it, and package pickle knows nothing of torch but its
// persistent ids.
//
// Package torchpt imports only the standard library and
// internal/benchlib/pickle; it must never import a benchmark's room (internal/bench/...), host, loadgen, sdk,
// plugins or cmd.
package torchpt
