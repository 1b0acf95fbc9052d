"""Writes the operator and small-model fixtures of the Go ONNX engine.

Each case is a model plus inputs and the outputs PyTorch computes for them,
under plugins/onnx/testdata/ops/<case>/, listed with its tolerances in
plugins/onnx/testdata/ops/manifest.json. Models come from torch.onnx.export
where PyTorch emits the operator, and from onnx.helper where it does not
(auto_pad, asymmetric pads, legacy opsets, Gemm attributes); the reference
output always comes from PyTorch.

Run through `make onnx-fixtures`; tests only read the committed files.
"""

import argparse
import shutil

import numpy as np
import onnx
import onnx.helper as oh
import onnx.numpy_helper
import torch
import torch.nn as nn
import torch.nn.functional as F

from common import export, save_case, to_np, write_manifest

OP_ATOL, OP_RTOL = 1e-5, 1e-4
MODEL_ATOL, MODEL_RTOL = 1e-4, 1e-3


def rnd(*shape):
    return torch.randn(*shape)


def helper_model(nodes, inputs, outputs, inits=(), opset=13):
    """Builds a model from onnx.helper pieces; inputs/outputs are
    (name, shape) pairs with 'N' for the batch dimension."""
    def vi(name, shape, elem=onnx.TensorProto.FLOAT):
        return oh.make_tensor_value_info(name, elem, shape)
    g = oh.make_graph(nodes, "case", [vi(*i) for i in inputs], [vi(*o) for o in outputs],
                      initializer=[onnx.numpy_helper.from_array(np.asarray(a, dtype=np.float32), n) for n, a in inits])
    m = oh.make_model(g, opset_imports=[oh.make_opsetid("", opset)], producer_name="onnxgen")
    m.ir_version = 8
    return m


class Lambda(nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *x):
        return self.fn(*x)


def module_case(out, name, module, *args, atol=OP_ATOL, rtol=OP_RTOL, opset=13, note="", dynamic=True):
    module.eval()
    with torch.no_grad():
        y = module(*args)
    m = export(module, tuple(args), opset=opset, dynamic_batch=dynamic)
    ys = y if isinstance(y, tuple) else (y,)
    out.append((name, m, [to_np(a) for a in args], [to_np(v) for v in ys], atol, rtol, note))


def conv_cases(out):
    module_case(out, "conv_3x3_pad1_bias", nn.Conv2d(3, 4, 3, padding=1), rnd(2, 3, 7, 6))
    module_case(out, "conv_stride2_dilation2", nn.Conv2d(2, 3, 3, stride=2, dilation=2, padding=2), rnd(1, 2, 11, 9))
    module_case(out, "conv_groups3", nn.Conv2d(6, 9, 3, groups=3, padding=1), rnd(2, 6, 5, 5))
    module_case(out, "conv_depthwise_stride2", nn.Conv2d(8, 8, 3, groups=8, padding=1, stride=2), rnd(2, 8, 9, 9))
    module_case(out, "conv_depthwise_5x5", nn.Conv2d(4, 4, 5, groups=4, padding=2), rnd(1, 4, 8, 10))
    module_case(out, "conv_1x1_nobias", nn.Conv2d(16, 8, 1, bias=False), rnd(2, 16, 4, 4))
    module_case(out, "conv_7x7_stride2_pad3", nn.Conv2d(3, 8, 7, stride=2, padding=3), rnd(1, 3, 20, 20))
    # Conv→BN→ReLU kept unfused by PyTorch (training mode export keeps BN):
    # exercises the engine's own BN folding and ReLU fusion.
    seq = nn.Sequential(nn.Conv2d(3, 5, 3, padding=1), nn.BatchNorm2d(5), nn.ReLU())
    with torch.no_grad():
        seq[1].running_mean.copy_(rnd(5) * 0.1)
        seq[1].running_var.copy_(torch.rand(5) + 0.5)
        seq[1].weight.copy_(rnd(5))
        seq[1].bias.copy_(rnd(5))
    seq.eval()
    x = rnd(2, 3, 6, 6)
    with torch.no_grad():
        y = seq(x)
    m = export(seq, (x,), training=torch.onnx.TrainingMode.PRESERVE)
    ops = [n.op_type for n in m.graph.node]
    assert "BatchNormalization" in ops, ops
    out.append(("conv_bn_relu_unfused", m, [to_np(x)], [to_np(y)], OP_ATOL, OP_RTOL, "BatchNormalization left in the graph"))

    # Padding the exporter never writes: asymmetric pads and auto_pad.
    w = rnd(4, 3, 3, 2)
    b = rnd(4)
    x = rnd(2, 3, 7, 8)
    node = oh.make_node("Conv", ["x", "w", "b"], ["y"], pads=[0, 1, 2, 0], strides=[2, 1])
    with torch.no_grad():
        y = F.conv2d(F.pad(x, (1, 0, 0, 2)), w, b, stride=(2, 1))
    out.append(("conv_asymmetric_pads", helper_model([node], [("x", ["N", 3, 7, 8])], [("y", None)], [("w", w), ("b", b)]),
                [to_np(x)], [to_np(y)], OP_ATOL, OP_RTOL, ""))
    for mode in ("SAME_UPPER", "SAME_LOWER", "VALID"):
        w = rnd(2, 3, 4, 3)
        x = rnd(1, 3, 9, 8)
        stride = (2, 3)
        node = oh.make_node("Conv", ["x", "w"], ["y"], auto_pad=mode, strides=list(stride))
        pads = (0, 0, 0, 0)
        if mode != "VALID":
            pads = []
            for i, (n, k, s) in enumerate(zip((9, 8), (4, 3), stride)):
                o = -(-n // s)
                total = max(0, (o - 1) * s + k - n)
                lo = total // 2 if mode == "SAME_UPPER" else total - total // 2
                pads.append((lo, total - lo))
            pads = (pads[1][0], pads[1][1], pads[0][0], pads[0][1])
        with torch.no_grad():
            y = F.conv2d(F.pad(x, pads), w, stride=stride)
        out.append((f"conv_auto_pad_{mode.lower()}", helper_model([node], [("x", ["N", 3, 9, 8])], [("y", None)], [("w", w)]),
                    [to_np(x)], [to_np(y)], OP_ATOL, OP_RTOL, ""))


def norm_act_cases(out):
    bn = nn.BatchNorm2d(4)
    with torch.no_grad():
        bn.running_mean.copy_(rnd(4))
        bn.running_var.copy_(torch.rand(4) + 0.1)
        bn.weight.copy_(rnd(4))
        bn.bias.copy_(rnd(4))
    module_case(out, "batchnorm", bn, rnd(2, 4, 3, 5))
    module_case(out, "relu", nn.ReLU(), rnd(3, 7))
    module_case(out, "clip_relu6", nn.ReLU6(), rnd(2, 5, 4) * 5)
    module_case(out, "clip_min_only", Lambda(lambda x: torch.clamp(x, min=-0.5)), rnd(4, 6))
    x = rnd(3, 4) * 3
    node = oh.make_node("Clip", ["x"], ["y"], min=-1.0, max=2.0)
    out.append(("clip_opset10_attrs", helper_model([node], [("x", ["N", 4])], [("y", None)], opset=10),
                [to_np(x)], [to_np(torch.clamp(x, -1, 2))], OP_ATOL, OP_RTOL, ""))


def pool_cases(out):
    module_case(out, "maxpool_3x3_s2_p1", nn.MaxPool2d(3, 2, 1), rnd(2, 3, 9, 9))
    module_case(out, "maxpool_ceil", nn.MaxPool2d(3, 2, ceil_mode=True), rnd(1, 2, 8, 10))
    module_case(out, "maxpool_dilation", nn.MaxPool2d(2, stride=1, dilation=2), rnd(1, 2, 7, 7))
    module_case(out, "avgpool_include_pad", nn.AvgPool2d(3, 2, 1, count_include_pad=True), rnd(2, 3, 8, 7))
    module_case(out, "avgpool_exclude_pad", nn.AvgPool2d(3, 2, 1, count_include_pad=False), rnd(2, 3, 8, 7))
    module_case(out, "avgpool_ceil", nn.AvgPool2d(2, 2, ceil_mode=True), rnd(1, 2, 7, 9))
    module_case(out, "global_avgpool", nn.AdaptiveAvgPool2d(1), rnd(2, 5, 6, 7))


def arith_cases(out):
    c = rnd(3, 1, 1)
    module_case(out, "add_channel_const", Lambda(lambda x: x + c), rnd(2, 3, 4, 5))
    module_case(out, "mul_broadcast_two_inputs", Lambda(lambda x, y: x * y), rnd(2, 3, 4, 5), rnd(3, 1, 5), dynamic=["x0"])
    module_case(out, "sub_div_scalar", Lambda(lambda x: (x - 0.5) / 4.0), rnd(2, 6))
    module_case(out, "add_same_shape", Lambda(lambda x, y: x + y), rnd(2, 3, 4), rnd(2, 3, 4))


def linear_cases(out):
    module_case(out, "gemm_linear", nn.Linear(12, 7), rnd(3, 12))
    module_case(out, "gemm_linear_relu", nn.Sequential(nn.Linear(40, 33), nn.ReLU()), rnd(9, 40))
    a, bm, cm = rnd(5, 3), rnd(5, 4), rnd(3, 4)
    node = oh.make_node("Gemm", ["a", "b", "c"], ["y"], transA=1, alpha=0.5, beta=2.0)
    y = 0.5 * a.t() @ bm + 2.0 * cm
    out.append(("gemm_transA_alpha_beta", helper_model([node], [("a", [5, 3])], [("y", None)], [("b", bm), ("c", cm)]),
                [to_np(a)], [to_np(y)], OP_ATOL, OP_RTOL, "runtime A, constant B and full C"))
    a, bm = rnd(4, 6), rnd(6, 5)
    node = oh.make_node("Gemm", ["a", "b"], ["y"])
    out.append(("gemm_runtime_b_no_c", helper_model([node], [("a", [4, 6]), ("b", [6, 5])], [("y", None)], opset=13),
                [to_np(a), to_np(bm)], [to_np(a @ bm)], OP_ATOL, OP_RTOL, "both operands at run time"))
    w = rnd(4, 5)
    module_case(out, "matmul_const_weight", Lambda(lambda x: torch.matmul(x, w)), rnd(2, 3, 4))
    module_case(out, "matmul_batched_broadcast", Lambda(lambda x, y: torch.matmul(x, y)), rnd(2, 1, 3, 4), rnd(3, 4, 5), dynamic=["x0"])


def shape_cases(out):
    module_case(out, "flatten", nn.Flatten(), rnd(2, 3, 4, 5))
    module_case(out, "reshape_dynamic_batch", Lambda(lambda x: x.view(x.size(0), -1, 2)), rnd(3, 4, 5, 2))
    module_case(out, "transpose", Lambda(lambda x: x.permute(0, 2, 3, 1)), rnd(2, 3, 4, 5))
    module_case(out, "concat_channels", Lambda(lambda x, y: torch.cat([x, y, x], dim=1)), rnd(2, 3, 4), rnd(2, 1, 4))
    module_case(out, "squeeze_unsqueeze", Lambda(lambda x: x.unsqueeze(1).squeeze(3)), rnd(2, 3, 1, 4))
    module_case(out, "softmax_axis1", nn.Softmax(dim=1), rnd(3, 10) * 4)
    module_case(out, "softmax_last_axis_4d", nn.Softmax(dim=-1), rnd(2, 3, 4, 5))
    x = rnd(2, 3, 4) * 3
    node = oh.make_node("Softmax", ["x"], ["y"], axis=1)
    y = torch.softmax(x.reshape(2, 12), dim=1).reshape(2, 3, 4)
    out.append(("softmax_opset11_coerced", helper_model([node], [("x", ["N", 3, 4])], [("y", None)], opset=11),
                [to_np(x)], [to_np(y)], OP_ATOL, OP_RTOL, "pre-13 semantics: normalize over all dims from axis"))
    module_case(out, "argmax", Lambda(lambda x: torch.argmax(x, dim=1)), rnd(4, 10))
    module_case(out, "argmax_keepdims", Lambda(lambda x: torch.argmax(x, dim=-1, keepdim=True)), rnd(2, 3, 6))
    x = rnd(2, 3)
    node = oh.make_node("Identity", ["x"], ["y"])
    out.append(("identity", helper_model([node], [("x", ["N", 3])], [("y", None)]), [to_np(x)], [to_np(x)], 0, 0, ""))
    node = oh.make_node("Dropout", ["x"], ["y"])
    out.append(("dropout_inference", helper_model([node], [("x", ["N", 3])], [("y", None)]), [to_np(x)], [to_np(x)], 0, 0,
                "inference mode: a copy"))
    module_case(out, "constant_add", Lambda(lambda x: x + torch.tensor([1.0, -2.0, 3.0])), rnd(2, 3))
    module_case(out, "cast_uint8_input", Lambda(lambda x: x.float() / 255.0),
                torch.randint(0, 256, (2, 1, 3, 3), dtype=torch.uint8))
    # GatherElements (torch.gather), its indices an input fed at run time,
    # negative ones among them, as a graph network gathers edge messages.
    x, i = rnd(2, 5, 3), torch.randint(-5, 5, (2, 7, 3))
    node = oh.make_node("GatherElements", ["x", "i"], ["y"], axis=1)
    m = helper_model([node], [("x", ["N", 5, 3])], [("y", None)])
    m.graph.input.append(oh.make_tensor_value_info("i", onnx.TensorProto.INT64, ["N", 7, 3]))
    out.append(("gather_elements_runtime_index", m, [to_np(x), to_np(i)], [to_np(torch.gather(x, 1, i % 5))], 0, 0,
                "indices fed at run time, negative ones among them"))


class BasicBlock(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.c1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.b1 = nn.BatchNorm2d(cout)
        self.c2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.b2 = nn.BatchNorm2d(cout)
        self.down = None
        if stride != 1 or cin != cout:
            self.down = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        y = F.relu(self.b1(self.c1(x)))
        y = self.b2(self.c2(y))
        return F.relu(y + (x if self.down is None else self.down(x)))


class MiniResNet(nn.Module):
    """A small ResNet: 7x7/2 stem, max pool, residual blocks with and
    without downsampling, global average pool, linear."""

    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 8, 7, 2, 3, bias=False), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(3, 2, 1))
        self.blocks = nn.Sequential(BasicBlock(8, 8, 1), BasicBlock(8, 16, 2), BasicBlock(16, 16, 1))
        self.fc = nn.Linear(16, 10)

    def forward(self, x):
        x = self.blocks(self.stem(x))
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))


class InvertedResidual(nn.Module):
    def __init__(self, cin, cout, stride, expand):
        super().__init__()
        hid = cin * expand
        self.use_res = stride == 1 and cin == cout
        self.body = nn.Sequential(
            nn.Conv2d(cin, hid, 1, bias=False), nn.BatchNorm2d(hid), nn.ReLU6(),
            nn.Conv2d(hid, hid, 3, stride, 1, groups=hid, bias=False), nn.BatchNorm2d(hid), nn.ReLU6(),
            nn.Conv2d(hid, cout, 1, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        y = self.body(x)
        return x + y if self.use_res else y


class MiniMobileNetV2(nn.Module):
    """A small MobileNetV2: inverted residuals with depthwise convolutions,
    ReLU6 (Clip), residual adds, dropout (inference) and a classifier."""

    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 8, 3, 2, 1, bias=False), nn.BatchNorm2d(8), nn.ReLU6(),
            InvertedResidual(8, 8, 1, 1), InvertedResidual(8, 12, 2, 4), InvertedResidual(12, 12, 1, 4),
            InvertedResidual(12, 16, 2, 4), nn.Conv2d(16, 32, 1, bias=False), nn.BatchNorm2d(32), nn.ReLU6())
        self.classifier = nn.Sequential(nn.Dropout(0.2), nn.Linear(32, 10))

    def forward(self, x):
        x = nn.functional.adaptive_avg_pool2d(self.features(x), (1, 1))
        return self.classifier(torch.flatten(x, 1))


def randomize_bn(module):
    """Gives every BatchNorm non-trivial running statistics."""
    with torch.no_grad():
        for m in module.modules():
            if isinstance(m, nn.BatchNorm2d):
                m.running_mean.copy_(torch.randn_like(m.running_mean) * 0.1)
                m.running_var.copy_(torch.rand_like(m.running_var) + 0.5)
                m.weight.copy_(torch.rand_like(m.weight) + 0.5)
                m.bias.copy_(torch.randn_like(m.bias) * 0.1)


def model_cases(out):
    for name, net, size in (("model_mini_resnet", MiniResNet(), 32), ("model_mini_mobilenetv2", MiniMobileNetV2(), 32)):
        randomize_bn(net)
        module_case(out, name, net, rnd(3, 3, size, size), atol=MODEL_ATOL, rtol=MODEL_RTOL)
        net.eval()
        x = rnd(2, 3, size, size)
        with torch.no_grad():
            y = net(x)
        m = export(net, (x,), training=torch.onnx.TrainingMode.PRESERVE)
        out.append((name + "_bn", m, [to_np(x)], [to_np(y)], MODEL_ATOL, MODEL_RTOL, "BatchNormalization left in the graph"))


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--out", required=True, help="fixture directory (replaced)")
    args = p.parse_args()
    torch.manual_seed(20261123)
    cases = []
    for gen in (conv_cases, norm_act_cases, pool_cases, arith_cases, linear_cases, shape_cases, model_cases):
        gen(cases)
    shutil.rmtree(args.out, ignore_errors=True)
    entries = [save_case(args.out, *c) for c in cases]
    write_manifest(args.out, entries)
    print(f"wrote {len(entries)} fixtures to {args.out}")


if __name__ == "__main__":
    main()
