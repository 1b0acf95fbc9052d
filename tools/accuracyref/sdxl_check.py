"""Checks mlperf-host's stable-diffusion-xl outputs against the official code.

accuracy_coco.py itself runs Inception-v3 and CLIP (torch, open_clip and
their weights, not installable here). This runs what of it can run:

  line REPO LOG FEATURES: reads LOG as the script does (json, the first
      response of each qsl_idx, np.frombuffer(...).reshape(S, S, 3)),
      takes the networks' outputs from FEATURES (val2014.npz, inception.npy,
      clip_image.npy, clip_text.npy: docs/benchmarks.md), computes FID with
      the official calculate_frechet_distance (taken from REPO's
      text_to_image/tools/fid/fid_score.py at run time) over np.mean and
      np.cov as calculate_activation_statistics does, CLIP as
      clip_encoder.get_clip_score does with the encoders' outputs (float32,
      each divided by its norm, the dot product, times 100), and prints the
      script's "Accuracy Results" line.
  compare NAME REPO LOG FEATURES OURS: computes that line and compares it with
      OURS, mlperf-host's: CLIP to the digit, FID to a relative 1e-9 (the
      square root's trace is summed from eigenvalues, where scipy's sqrtm
      takes a Schur decomposition: the last digits differ); exits 1 when
      they differ.
  images LOG DIR: decodes LOG as the script does and saves each image with
      PIL as the script saves its compliance images; prints how many of
      DIR's IDX.png hold the same pixels, in RGB.
"""
import ast
import json
import os
import sys

import numpy as np


def images(log):
    seen, out = set(), []
    for j in json.load(open(log)):
        idx = j["qsl_idx"]
        if idx in seen:
            continue
        seen.add(idx)
        data = bytes.fromhex(j["data"])
        side = int(round((len(data) // 3) ** 0.5))
        out.append((idx, np.frombuffer(data, np.uint8).reshape(side, side, 3)))
    return out


def frechet(repo):
    path = os.path.join(repo, "text_to_image", "tools", "fid", "fid_score.py")
    tree = ast.parse(open(path).read())
    fn = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "calculate_frechet_distance"][0]
    from scipy import linalg
    ns = {"np": np, "linalg": linalg}
    exec(compile(ast.Module(body=[fn], type_ignores=[]), path, "exec"), ns)
    return ns["calculate_frechet_distance"]


def scores(repo, log, features):
    n = len(images(log))
    with np.load(os.path.join(features, "val2014.npz")) as f:
        m1, s1 = f["mu"][:], f["sigma"][:]
    act = np.load(os.path.join(features, "inception.npy"))
    assert act.shape[0] == n, (act.shape, n)
    m2, s2 = np.mean(act, axis=0), np.cov(act, rowvar=False)
    fid = frechet(repo)(m1, s1, m2, s2)
    img = np.load(os.path.join(features, "clip_image.npy")).astype(np.float32)
    txt = np.load(os.path.join(features, "clip_text.npy")).astype(np.float32)
    clip = []
    for a, b in zip(img, txt):
        a = a / np.linalg.norm(a)
        b = b / np.linalg.norm(b)
        clip.append(100 * float(np.dot(a, b)))
    return f"{fid}", f"{np.mean(clip)}"


def text(fid, clip):
    return f"Accuracy Results: {dict(FID_SCORE=fid, CLIP_SCORE=clip)}"


def compare(name, repo, log, features, ours):
    fid, clip = scores(repo, log, features)
    got = ast.literal_eval(ours.split(": ", 1)[1])
    ok = got["CLIP_SCORE"] == clip and abs(float(got["FID_SCORE"]) - float(fid)) <= 1e-9 * max(1, abs(float(fid)))
    print(("same     " if ok else "DIFFER   ") + f"{name:<22} official: {text(fid, clip)}\n         {'':<22} ours:     {ours}")
    sys.exit(0 if ok else 1)


def check_images(log, d):
    from PIL import Image
    same = 0
    decoded = images(log)
    for idx, a in decoded:
        ref = os.path.join(d, f"ref_{idx}.png")
        Image.fromarray(a).save(ref)
        ours = Image.open(os.path.join(d, f"{idx}.png"))
        if ours.mode == "RGB" and (np.asarray(ours) == np.asarray(Image.open(ref))).all():
            same += 1
        os.remove(ref)
    print(f"images: {same} of {len(decoded)} as the script saves them")


if __name__ == "__main__":
    if sys.argv[1] == "line":
        print(text(*scores(*sys.argv[2:5])))
    elif sys.argv[1] == "compare":
        compare(*sys.argv[2:7])
    else:
        check_images(*sys.argv[2:4])
