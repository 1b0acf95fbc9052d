#!/usr/bin/python3
"""Measures how close `mlperf-host dataset prepare imagenet` comes to the
ResNet-50 reference's own preprocessing (pre_process_vgg of
vision/classification_and_detection/python/dataset.py, run from an
mlcommons/inference checkout over OpenCV's imread).

Usage: imagenet_check.py INFERENCE_DIR MLPERF_HOST WORKDIR

It writes generated images (smooth gradients, edges and noise; fixed
seed) as JPEG (4:2:0, 4:2:2 and 4:4:4 chroma, grayscale; written by PIL) and as PNG (lossless:
the same pixels reach both resizes, which isolates the resize), in sizes
that shrink, grow and shrink by an integral factor, prepares them with
both, and prints per image and per group the largest and the mean
absolute difference of the float32 samples (pixel levels: the means
subtracted are the same). It fails when a PNG differs at all (the resize
is OpenCV's, bit for bit) or a JPEG by more than MAX_JPEG levels (Go's
image/jpeg's inverse DCT is not libjpeg's).
"""
import os
import subprocess
import sys

import cv2
import numpy as np
from PIL import Image

MAX_JPEG = 4

inference, mlperf_host, work = sys.argv[1:4]
sys.path.insert(0, os.path.join(inference, "vision", "classification_and_detection", "python"))
import dataset  # noqa: E402  the reference's preprocessing

rng = np.random.default_rng(2012)
src = os.path.join(work, "raw")
dst = os.path.join(work, "prepared")
os.makedirs(src, exist_ok=True)


def picture(w, h):
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    img = np.empty((h, w, 3), np.float32)
    for c in range(3):
        a, b, p = rng.random(3)
        img[..., c] = 128 + 90 * np.sin(xx / (10 + 60 * a) + p * 6) * np.cos(yy / (10 + 60 * b))
    for _ in range(6):  # hard edges
        x0, y0 = rng.integers(0, w), rng.integers(0, h)
        img[y0:y0 + h // 4, x0:x0 + w // 5] = rng.integers(0, 256, 3)
    img += rng.normal(0, 6, img.shape)
    return np.clip(img, 0, 255).astype(np.uint8)


sizes = [(500, 375), (375, 500), (640, 480), (512, 768), (1024, 683), (300, 257), (200, 150), (120, 240), (256, 256)]
names = []
for i, (w, h) in enumerate(sizes):
    img = picture(w, h)
    rgb = Image.fromarray(img[..., ::-1])
    for kind in ("jpg420", "jpg422", "jpg444", "gray", "png"):
        name = "img_%02d_%dx%d_%s.%s" % (i, w, h, kind, "png" if kind == "png" else "JPEG")
        path = os.path.join(src, name)
        if kind == "png":
            cv2.imwrite(path, img)
        elif kind == "gray":
            rgb.convert("L").save(path, "JPEG", quality=90)
        else:
            rgb.save(path, "JPEG", quality=90, subsampling={"jpg444": 0, "jpg422": 1, "jpg420": 2}[kind])
        names.append(name)
with open(os.path.join(src, "val_map.txt"), "w") as f:
    for i, n in enumerate(names):
        f.write("%s %d\n" % (n, i))

subprocess.run([mlperf_host, "dataset", "prepare", "imagenet", src, dst], check=True, stdout=subprocess.DEVNULL)

groups = {}
worst = {}
for name in names:
    ref = dataset.pre_process_vgg(cv2.imread(os.path.join(src, name)), dims=[224, 224, 3], need_transpose=True)
    ours = np.load(os.path.join(dst, name + ".npy"))
    assert ours.shape == ref.shape and ours.dtype == ref.dtype, (name, ours.shape, ours.dtype)
    d = np.abs(ours.astype(np.float64) - ref.astype(np.float64))
    kind = name.rsplit("_", 1)[1].split(".")[0]
    groups.setdefault(kind, []).append(d)
    print("%-34s max %5.2f mean %.4f differing %6.2f%%" % (name, d.max(), d.mean(), 100 * (d > 1e-4).mean()))
print()
fail = False
for kind, ds in groups.items():
    allv = np.concatenate([x.ravel() for x in ds])
    print("%-7s %2d images: max %5.2f mean %.4f differing %6.2f%%" % (kind, len(ds), allv.max(), allv.mean(), 100 * (allv > 1e-4).mean()))
    bound = 0 if kind == "png" else MAX_JPEG
    fail |= allv.max() > bound
if fail:
    print("imagenet_check: mlperf-host's preprocessing differs from the reference's beyond the bounds", file=sys.stderr)
    sys.exit(1)
