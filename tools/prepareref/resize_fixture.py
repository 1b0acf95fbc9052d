#!/usr/bin/python3
"""Writes internal/benchlib/imaging/testdata/resize_area.json: small 3-channel
images and what OpenCV's cv2.resize(..., interpolation=cv2.INTER_AREA)
makes of them (generic shrink, 2x2 and 3x3 integral shrinks with ties,
growth, growth on one axis only), for the Go resize's test. Run from the
repository root with Debian's python3-opencv; fixed seed."""
import json

import cv2
import numpy as np

rng = np.random.default_rng(256)
cases = []
for (sw, sh), (dw, dh) in [((7, 5), (4, 3)), ((8, 6), (4, 3)), ((9, 6), (3, 2)), ((5, 4), (11, 9)),
                           ((6, 4), (6, 9)), ((23, 19), (16, 7)), ((4, 4), (4, 4))]:
    src = rng.integers(0, 256, (sh, sw, 3), dtype=np.uint8)
    if (sw, sh) == (8, 6):
        src &= 0xFE  # even levels: 2x2 sums with ties
    dst = cv2.resize(src, (dw, dh), interpolation=cv2.INTER_AREA)
    cases.append({"sw": sw, "sh": sh, "dw": dw, "dh": dh, "src": src.ravel().tolist(), "dst": dst.ravel().tolist()})
with open("internal/benchlib/imaging/testdata/resize_area.json", "w") as f:
    json.dump({"opencv": cv2.__version__, "cases": cases}, f)
    f.write("\n")
