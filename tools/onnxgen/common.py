"""Shared helpers of the onnxgen tools: writing ONNX test data the way the
ONNX backend test suite lays it out (model.onnx plus input_N.pb/output_N.pb
TensorProto files), and exporting PyTorch modules."""

import io
import json
import os

import numpy as np
import onnx
import onnx.numpy_helper
import torch

# The opset the fixtures are exported at unless a case says otherwise.
OPSET = 13


def export(module, args, opset=OPSET, input_names=None, output_names=None, dynamic_batch=True, **kw):
    """Exports a torch module to ONNX bytes with a free batch dimension."""
    module.eval()
    if not isinstance(args, tuple):
        args = (args,)
    input_names = input_names or [f"x{i}" if len(args) > 1 else "x" for i in range(len(args))]
    output_names = output_names or ["y"]
    axes = {}
    if dynamic_batch is True:
        axes = {n: {0: "N"} for n in input_names + output_names}
    elif dynamic_batch:
        axes = {n: {0: "N"} for n in list(dynamic_batch) + output_names}
    buf = io.BytesIO()
    torch.onnx.export(module, args, buf, opset_version=opset, input_names=input_names,
                      output_names=output_names, dynamic_axes=axes, do_constant_folding=True, **kw)
    return onnx.load_from_string(buf.getvalue())


def save_case(root, name, model, inputs, outputs, atol, rtol, note=""):
    """Writes one fixture directory and returns its manifest entry."""
    d = os.path.join(root, name)
    os.makedirs(d, exist_ok=True)
    for vi, a in zip(model.graph.output, outputs):
        tt = vi.type.tensor_type
        if not tt.HasField("shape"):
            for n in np.shape(a):
                tt.shape.dim.add().dim_value = n
    onnx.checker.check_model(model)
    with open(os.path.join(d, "model.onnx"), "wb") as f:
        f.write(model.SerializeToString())
    for kind, arrays in (("input", inputs), ("output", outputs)):
        for i, a in enumerate(arrays):
            t = onnx.numpy_helper.from_array(np.ascontiguousarray(a))
            with open(os.path.join(d, f"{kind}_{i}.pb"), "wb") as f:
                f.write(t.SerializeToString())
    return {"name": name, "inputs": len(inputs), "outputs": len(outputs), "atol": atol, "rtol": rtol, "note": note}


def write_manifest(root, entries):
    with open(os.path.join(root, "manifest.json"), "w") as f:
        json.dump(entries, f, indent=1, sort_keys=True)
        f.write("\n")


def to_np(t):
    if isinstance(t, torch.Tensor):
        return t.detach().numpy()
    return np.asarray(t)
