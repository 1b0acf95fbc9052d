#!/usr/bin/env python3
"""wan-2.2-t2v-a14b's frames as the reference converts them, in numpy.

VBench's networks cannot run here, so `mlperf-host accuracy` writes each
logged video's frames for export_to_video's ffmpeg pipe instead of scoring.
This script decodes the same accuracy log as the reference's pieces would:
each response numpy's float32 frames [frames, height, width, 3], each frame
converted as diffusers' export_to_video does, (frame * 255).astype(uint8),
after clipping to [0, 1] (numpy leaves the cast of a value beyond 255
undefined; the pipeline's frames are in [0, 1] and mlperf-host saturates).
It prints the SHA-256 of the frames of every logged sample in qsl_idx
order, which verify.sh compares with that of mlperf-host's frames/ files.

Usage: wan_frames.py LOG FRAMES HEIGHT WIDTH
"""
import hashlib
import json
import sys

import numpy as np


def main():
    log, frames, height, width = sys.argv[1], *map(int, sys.argv[2:5])
    with open(log) as f:
        entries = json.load(f)
    by_idx = {}
    for e in entries:
        x = np.frombuffer(bytes.fromhex(e["data"]), np.float32).reshape(frames, height, width, 3)
        by_idx[e["qsl_idx"]] = b"".join((f * 255).astype(np.uint8).tobytes() for f in np.clip(x, 0, 1))
    h = hashlib.sha256()
    for i in sorted(by_idx):
        h.update(by_idx[i])
    print(f"frames sha256={h.hexdigest()}")


if __name__ == "__main__":
    main()
