#!/usr/bin/python3
"""Writes the accuracy scorers' fixtures under internal/accuracy/testdata/.

Deterministic (fixed seeds); run from the repository root with Debian's
python3 (numpy). The expected numbers in the Go tests are what the official
scripts print on these files (tools/accuracyref/verify.sh).
"""
import json
import os
import struct

import numpy as np

OUT = os.path.join("internal", "accuracy", "testdata")


def write_log(path, entries):
    """entries: (qsl_idx, bytes) in log order, written as LoadGen does."""
    with open(path, "w") as f:
        f.write("[\n")
        for i, (idx, data) in enumerate(entries):
            sep = ",\n" if i < len(entries) - 1 else "\n"
            f.write('{ "seq_id" : %d, "qsl_idx" : %d, "data" : "%s" }%s' % (i, idx, data.hex().upper(), sep))
        f.write("]\n")


def dlrm():
    d = os.path.join(OUT, "dlrm")
    os.makedirs(d, exist_ok=True)
    rng = np.random.default_rng(23)
    counts = [3, 1, 5, 2, 4, 2, 6, 1]
    labels = [rng.integers(0, 2, c) for c in counts]
    # Scores rounded to 1/16 so that ties occur; a sample repeated at the
    # end is a duplicate the scorers skip.
    preds = [np.round(np.clip(0.2 * l + rng.random(len(l)) * 0.8, 0, 1) * 16) / 16 for l in labels]
    order = [3, 0, 7, 5, 1, 6, 2, 4, 0]
    with_gt = []
    pred_only = []
    for i in order:
        rec = np.stack([preds[i], labels[i]], axis=1).astype(np.float32)
        with_gt.append((i, rec.tobytes()))
        pred_only.append((i, preds[i].astype(np.float32).tobytes()))
    write_log(os.path.join(d, "mlperf_log_accuracy.json"), with_gt)
    write_log(os.path.join(d, "predictions_only.json"), pred_only)
    with open(os.path.join(d, "day_23"), "w") as f:
        for l in labels:
            for y in l:
                f.write("%d\t0\t1\t2\n" % y)
    with open(os.path.join(d, "trace.txt"), "w") as f:
        for i, c in enumerate(counts):
            f.write("%d, %d, %d\n" % (i, 1000 + i, c))


if __name__ == "__main__":
    dlrm()
