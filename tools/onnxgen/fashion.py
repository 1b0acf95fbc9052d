"""Trains the small Fashion-MNIST CNN of the onnx plugin's demo and writes
what a fresh clone needs to run it without PyTorch:

  model.onnx                  the trained model: uint8 [N,1,28,28] -> logits [N,10]
  test-images-idx3-ubyte.gz   the first --subset test images (IDX, gzip)
  test-labels-idx1-ubyte.gz   their labels (IDX, gzip)
  reference.json              PyTorch's accuracy on that subset, its predicted
                              classes, and its logits for the first images

The model takes raw pixels: scaling and normalization are inside the graph
(Cast, Div, Sub, Div), so samples are the dataset's 784 bytes as they are.

Data: Debian's dataset-fashion-mnist (/usr/share/datasets/fashion-mnist).
Run through `make onnx-fashion`.
"""

import argparse
import gzip
import json
import os
import struct
import time

import numpy as np
import torch
import torch.nn as nn

from common import export

DATA = "/usr/share/datasets/fashion-mnist"
MEAN, STD = 0.2860, 0.3530


def read_idx(path):
    with gzip.open(path, "rb") as f:
        data = f.read()
    magic, = struct.unpack(">I", data[:4])
    ndim = magic & 0xFF
    dims = struct.unpack(">" + "I" * ndim, data[4:4 + 4 * ndim])
    return np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * ndim).reshape(dims)


def write_idx(path, array):
    """Writes an unsigned-byte IDX file (magic 0x00000800 | ndim), gzipped
    with a zero mtime so that reruns give identical bytes."""
    header = struct.pack(">I", 0x0800 | array.ndim) + struct.pack(">" + "I" * array.ndim, *array.shape)
    with open(path, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as f:
        f.write(header + array.astype(np.uint8).tobytes())


class FashionCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2))
        self.classifier = nn.Sequential(nn.Flatten(), nn.Linear(32 * 7 * 7, 64), nn.ReLU(), nn.Linear(64, 10))

    def forward(self, x):
        x = (x.float() / 255.0 - MEAN) / STD
        return self.classifier(self.features(x))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", required=True)
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--subset", type=int, default=1000)
    p.add_argument("--seed", type=int, default=20261123)
    args = p.parse_args()
    torch.manual_seed(args.seed)
    torch.set_num_threads(os.cpu_count() or 1)

    xtr = torch.from_numpy(read_idx(f"{DATA}/train-images-idx3-ubyte.gz").copy()).unsqueeze(1)
    ytr = torch.from_numpy(read_idx(f"{DATA}/train-labels-idx1-ubyte.gz").astype(np.int64))
    xte_np = read_idx(f"{DATA}/t10k-images-idx3-ubyte.gz")
    yte_np = read_idx(f"{DATA}/t10k-labels-idx1-ubyte.gz")
    xte = torch.from_numpy(xte_np.copy()).unsqueeze(1)
    yte = torch.from_numpy(yte_np.astype(np.int64))

    net = FashionCNN()
    opt = torch.optim.Adam(net.parameters(), lr=2e-3)
    t0 = time.time()
    for epoch in range(args.epochs):
        net.train()
        perm = torch.randperm(len(xtr))
        for i in range(0, len(xtr), 128):
            idx = perm[i:i + 128]
            opt.zero_grad()
            loss = nn.functional.cross_entropy(net(xtr[idx]), ytr[idx])
            loss.backward()
            opt.step()
        net.eval()
        with torch.no_grad():
            acc = (net(xte).argmax(1) == yte).float().mean().item()
        print(f"epoch {epoch + 1}: loss {loss.item():.3f}, test accuracy {acc:.4f} ({time.time() - t0:.0f}s)")

    os.makedirs(args.out, exist_ok=True)
    sub_x, sub_y = xte[:args.subset], yte[:args.subset]
    with torch.no_grad():
        logits = net(sub_x)
    pred = logits.argmax(1)
    sub_acc = (pred == sub_y).float().mean().item()
    m = export(net, (sub_x[:2],), input_names=["image"], output_names=["logits"])
    with open(os.path.join(args.out, "model.onnx"), "wb") as f:
        f.write(m.SerializeToString())
    write_idx(os.path.join(args.out, "test-images-idx3-ubyte.gz"), xte_np[:args.subset])
    write_idx(os.path.join(args.out, "test-labels-idx1-ubyte.gz"), yte_np[:args.subset])
    ref = {
        "producer": f"torch {torch.__version__}",
        "epochs": args.epochs,
        "seed": args.seed,
        "full_test_accuracy": acc,
        "subset": args.subset,
        "subset_accuracy": sub_acc,
        "predictions": pred.tolist(),
        "logits_first8": [[round(float(v), 6) for v in row] for row in logits[:8]],
    }
    with open(os.path.join(args.out, "reference.json"), "w") as f:
        json.dump(ref, f, indent=1)
        f.write("\n")
    print(f"subset accuracy {sub_acc:.4f}; wrote {args.out}")


if __name__ == "__main__":
    main()
