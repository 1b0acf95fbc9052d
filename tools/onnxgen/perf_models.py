"""Writes random-weight ResNet-50 v1.5 and MobileNetV2 models (torchvision
topologies, 224x224 inputs, free batch dimension) for performance runs.
They are generated on demand, never committed: `make onnx-perf-models`.

BatchNormalization is folded into the convolutions by the exporter (eval
mode), as in the MLPerf reference ResNet-50 ONNX file."""

import argparse
import os

import torch
import torchvision

from common import export


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--out", required=True)
    args = p.parse_args()
    torch.manual_seed(1)
    os.makedirs(args.out, exist_ok=True)
    x = torch.randn(1, 3, 224, 224)
    # torchvision's resnet50 puts the stride on the 3x3 convolution of
    # each bottleneck: that is v1.5.
    for name, net in (("resnet50.onnx", torchvision.models.resnet50()),
                      ("mobilenetv2.onnx", torchvision.models.mobilenet_v2())):
        m = export(net, (x,), input_names=["input"], output_names=["logits"])
        path = os.path.join(args.out, name)
        with open(path, "wb") as f:
            f.write(m.SerializeToString())
        print(f"wrote {path}: {os.path.getsize(path) >> 20} MiB, {len(m.graph.node)} nodes")


if __name__ == "__main__":
    main()
