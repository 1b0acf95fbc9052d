#!/usr/bin/python3
"""Writes the accuracy scorers' fixtures under internal/bench/PACKAGE/testdata/.

Deterministic (fixed seeds); run from the repository root with Debian's
python3 (numpy). The expected numbers in the Go tests are what the official
scripts print on these files (tools/accuracyref/verify.sh).
"""
import json
import os
import struct

import numpy as np

# BENCH/PACKAGE/testdata holds the fixtures of a benchmark's package.
BENCH = os.path.join("internal", "bench")


def write_log(path, entries):
    """entries: (qsl_idx, bytes) in log order, written as LoadGen does."""
    with open(path, "w") as f:
        f.write("[\n")
        for i, (idx, data) in enumerate(entries):
            sep = ",\n" if i < len(entries) - 1 else "\n"
            f.write('{ "seq_id" : %d, "qsl_idx" : %d, "data" : "%s" }%s' % (i, idx, data.hex().upper(), sep))
        f.write("]\n")


def dlrm():
    d = os.path.join(BENCH, "dlrmv2", "testdata", "dlrm")
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


def openimages():
    d = os.path.join(BENCH, "retinanet", "testdata", "openimages")
    os.makedirs(os.path.join(d, "annotations"), exist_ok=True)
    rng = np.random.default_rng(800)
    cats = [7, 1, 3]  # file order is not sorted: --use-inv-map follows it
    images, anns = [], []
    sizes = [(800, 600), (640, 480), (1024, 768), (500, 500), (300, 700), (800, 800), (640, 640)]
    for i, (w, h) in enumerate(sizes):
        images.append({"id": 100 + 3 * i, "height": h, "width": w, "file_name": "img%d.jpg" % i, "coco_url": ""})
        for _ in range(int(rng.integers(1, 5))):
            bw, bh = rng.uniform(8, w / 2), rng.uniform(8, h / 2)
            x, y = rng.uniform(0, w - bw), rng.uniform(0, h - bh)
            anns.append({"id": len(anns) + 1, "image_id": 100 + 3 * i, "category_id": int(rng.choice(cats)),
                         "bbox": [x, y, bw, bh], "area": bw * bh, "iscrowd": 0})
    # A crowd region: a detection inside it is ignored, not a false positive.
    anns.append({"id": len(anns) + 1, "image_id": 100, "category_id": 1, "bbox": [10, 10, 300, 200],
                 "area": 60000.0, "iscrowd": 1})
    with open(os.path.join(d, "annotations", "openimages-mlperf.json"), "w") as f:
        json.dump({"images": images, "annotations": anns,
                   "categories": [{"id": c, "name": "c%d" % c} for c in cats]}, f, indent=1)

    def rows(i, inv):
        w, h = sizes[i]
        out = []
        for a in anns:
            if a["image_id"] != 100 + 3 * i:
                continue
            x, y, bw, bh = a["bbox"]
            for _ in range(int(rng.integers(0, 3))):
                j = rng.normal(0, 0.12, 4) * [bw, bh, bw, bh]
                cat = a["category_id"] if rng.random() < 0.85 else int(rng.choice(cats))
                out.append([i, (y + j[1]) / h, (x + j[0]) / w, (y + bh + j[3]) / h, (x + bw + j[2]) / w,
                            round(rng.random(), 1), cats.index(cat) + 1 if inv else cat])
        for _ in range(int(rng.integers(0, 3))):  # false positives
            y0, x0 = rng.random(2) * 0.6
            cat = int(rng.choice(cats))
            out.append([i, y0, x0, y0 + 0.3, x0 + 0.3, round(rng.random(), 1), cats.index(cat) + 1 if inv else cat])
        return np.array(out, np.float32).reshape(-1).tobytes()

    for name, inv in (("mlperf_log_accuracy.json", False), ("inv_map_log.json", True)):
        # Image 4 answers nothing; image 6 is not in the log; image 2 is
        # logged twice (the second is skipped).
        entries = [(i, rows(i, inv)) for i in (2, 0, 5, 1, 3)] + [(4, b""), (2, rows(2, inv))]
        write_log(os.path.join(d, name), entries)


def kits():
    """Three cases with the reference preprocessing's layout: nifti/CASE/
    segmentation.nii.gz and preprocessed_files.pkl (the official script's
    file list). Needs python3-nibabel."""
    import pickle

    import nibabel

    d = os.path.join(BENCH, "unet3d", "testdata", "kits19")
    rng = np.random.default_rng(19)
    shapes = {"case_00003": (6, 5, 4), "case_00000": (4, 7, 3), "case_00012": (5, 5, 6)}
    names = sorted(shapes)
    aux = {"file_list": names, "cases": {}}
    preds = {}
    for name in names:
        shape = shapes[name]
        z, y, x = np.indices(shape)
        truth = ((z - shape[0] / 2) ** 2 + (y - shape[1] / 2) ** 2 < 5).astype(np.uint8)
        truth[(x == 1) & (truth == 1) & (z < shape[0] / 2)] = 2
        pred = truth.copy()
        flip = rng.random(shape) < 0.15
        pred[flip] = rng.integers(0, 3, int(flip.sum()))
        affine = np.diag([1.6, 1.2, 1.2, 1.0])
        os.makedirs(os.path.join(d, "nifti", name), exist_ok=True)
        nibabel.save(nibabel.Nifti1Image(truth, affine=affine), os.path.join(d, "nifti", name, "segmentation.nii.gz"))
        aux["cases"][name] = {"image_shape": (1,) + shape, "reshaped_affine": affine}
        preds[name] = pred
    with open(os.path.join(d, "preprocessed_files.pkl"), "wb") as f:
        pickle.dump(aux, f)
    order = [2, 0, 1]
    write_log(os.path.join(d, "mlperf_log_accuracy.json"), [(i, preds[names[i]].tobytes()) for i in order])


SQUAD_TEXT = [
    ("Lorem", [
        ("The leader was John Smith (1895-1943). He played the cello in the Café Müller, "
         "and his playing was admired by the critics of Paris.",
         [("q1", "When was John Smith born?", ["1895"]),
          ("q2", "Where did Smith play?", ["Café Müller", "the Café Müller"]),
          ("q3", "Who admired his playing?", ["the critics of Paris"])]),
    ]),
    ("Ipsum", [
        (" ".join("Word%d is a token, and the river flows north." % (i % 7) for i in range(60)) +
         " The answer to the long question is forty-two.",
         [("q4", "What is the answer to the long question?", ["forty-two", "42"]),
          ("q5", "Which way does the river flow?", ["north"])]),
        ("An apple a day keeps the doctor away; an Über-apple keeps two away.",
         [("q6", "What keeps the doctor away?", ["An apple a day", "apple"])]),
    ]),
]


def squad():
    """A tiny SQuAD v1.1 dev set (one context longer than a sequence, so
    it has several features), a vocabulary made from it with some words
    only as WordPieces, and logits. Needs INFERENCE_REPO (the official
    create_squad_data.py cuts the features) and tools/accuracyref/shims."""
    import sys
    repo = os.environ["INFERENCE_REPO"]
    sys.path[:0] = [os.path.join(os.path.dirname(__file__), "shims"), os.path.join(repo, "language", "bert")]
    import tokenization
    from create_squad_data import convert_examples_to_features, read_squad_examples

    d = os.path.join(BENCH, "bert", "testdata", "squad")
    os.makedirs(d, exist_ok=True)
    data = {"version": "1.1", "data": []}
    for title, pars in SQUAD_TEXT:
        art = {"title": title, "paragraphs": []}
        for ctx, qas in pars:
            art["paragraphs"].append({"context": ctx, "qas": [
                {"id": qid, "question": q, "answers": [{"text": a, "answer_start": max(ctx.find(a), 0)} for a in ans]}
                for qid, q, ans in qas]})
        data["data"].append(art)
    with open(os.path.join(d, "dev-v1.1.json"), "w") as f:
        json.dump(data, f, indent=1, ensure_ascii=False)
    basic = tokenization.BasicTokenizer(do_lower_case=True)
    words = set()
    for _, pars in SQUAD_TEXT:
        for ctx, qas in pars:
            words.update(basic.tokenize(ctx))
            for _, q, _ in qas:
                words.update(basic.tokenize(q))
    pieces = {"playing": ["play", "##ing"], "played": ["play", "##ed"], "admired": ["admire", "##d"], "critics": ["critic", "##s"]}
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    for w in sorted(words):
        for p in pieces.get(w, [w]):
            if p not in vocab:
                vocab.append(p)
    vocab.remove("word3")  # a word the vocabulary cannot cover: [UNK]
    with open(os.path.join(d, "vocab.txt"), "w") as f:
        f.write("\n".join(vocab) + "\n")

    examples = read_squad_examples(os.path.join(d, "dev-v1.1.json"), False, False)
    feats = []
    convert_examples_to_features(examples, tokenization.FullTokenizer(os.path.join(d, "vocab.txt")),
                                 384, 128, 64, False, feats.append)
    rng = np.random.default_rng(11)
    entries = []
    for i, f in enumerate(feats):
        ex = examples[f.example_index]
        n = 384 if i % 3 else len(f.tokens)  # some responses stop at the sequence's end
        logits = rng.normal(0, 1, (n, 2)).astype(np.float32)
        # Point most features at their first answer's first word.
        ans = basic.tokenize(data_answers(data)[ex.qas_id][0])
        if i % 4 != 3:
            for pos, tok in enumerate(f.tokens[:n]):
                if pos in f.token_to_orig_map and tok == ans[0]:
                    logits[pos, 0] += 6
                    logits[min(pos + len(ans) - 1 + 2 * (i % 4 == 1), n - 1), 1] += 6  # some too long
                    break
        if i != 2:  # feature 2 is not answered at all
            entries.append((i, logits.tobytes()))
    rng.shuffle(entries)
    entries.append(entries[0])
    write_log(os.path.join(d, "mlperf_log_accuracy.json"), entries)


def data_answers(data):
    return {qa["id"]: [a["text"] for a in qa["answers"]]
            for art in data["data"] for p in art["paragraphs"] for qa in p["qas"]}


WHISPER_LABELS = " abcdefghijklmnopqrstuvwxyz'0123456789$%+-"


def whisper():
    """A LibriSpeech-style manifest whose transcripts exercise whisper's
    EnglishTextNormalizer (numbers, currency, contractions, titles,
    fillers, spellings, concatenated words), a tiny spelling table in
    english.json's form and an int64 log of character indices."""
    d = os.path.join(BENCH, "whisper", "testdata", "whisper")
    os.makedirs(d, exist_ok=True)
    utts = [
        ("mister smith paid twenty five dollars and ten cents for the colour tv", "mr smith paid $25 and 10 cents for the color tv"),
        ("i won't go um there at nineteen sixty one", "i will not go there at 1961"),
        ("everyone said it's one hundred and five percent", "every one said it is 105%"),
        # longer than 30 s: not a sample, the indices after it shift
        ("skipped utterance", None),
        ("the ninth of june two thousand and twenty", "the 9th of june 2020"),
        ("she'd been there double o seven times", "she had been there 007 times"),
        (42, None),  # not a string: dropped
        ("Hello, World. the twenty first of may in the sixties", "hello world the 21st of may in the 60s"),
        ("the colour of mr and mrs brown's honour is one oh one", "the color of mister and missus browns honor is 101"),
        ("he paid three and a half million pounds hmm", "he paid three point five million pounds"),
        ("a well known minus five degrees and uh triple nine", "a well-known -5 degrees and 999 +"),
        ("to be or not to be", "to be or not to"),
    ]
    manifest, hyps = [], []
    for i, (ref, hyp) in enumerate(utts):
        dur = 31.5 if hyp is None and isinstance(ref, str) else 3.0 + i
        manifest.append({"transcript": ref, "files": [{"fname": "dev-clean/%d.wav" % i, "speed": 1, "duration": dur}],
                         "original_duration": dur, "original_num_samples": int(dur * 16000)})
        if hyp is not None:
            hyps.append(hyp)
    with open(os.path.join(d, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    with open(os.path.join(d, "english.json"), "w") as f:
        json.dump({"colour": "color", "honour": "honor", "tyre": "tire"}, f, indent=1)
    normalizer_cases(d)
    order = [3, 0, 7, 5, 9, 1, 6, 2, 8, 4, 0]  # 0 twice: the script counts it twice
    write_log(os.path.join(d, "mlperf_log_accuracy.json"),
              [(i, struct.pack("<%dq" % len(hyps[i]), *[WHISPER_LABELS.index(c) for c in hyps[i]])) for i in order])


def normalizer_cases(d):
    """normalizer_cases.json: random word sequences over the number
    normalizer's vocabulary, contractions, digits and symbols, and what
    shims/whisper's EnglishTextNormalizer makes of them."""
    import random
    import sys
    sys.path.insert(0, os.path.join("tools", "accuracyref", "shims"))
    os.environ["WHISPER_SPELLINGS"] = os.path.join(d, "english.json")
    from whisper import normalizers
    vocab = sorted(normalizers.ALL) + ["1", "05", "3", "2020", "007", "1.5", "$5", "x", "colour", "won't",
                                       "i'm", "it's", "'s", "mr", "um", "half", "a", "9th", "-", "+", "%",
                                       "$", "'", "10s", "st", "(aside)", "[noise]", "1,000", "end."]
    rng = random.Random(7)
    norm = normalizers.EnglishTextNormalizer()
    cases = []
    for _ in range(400):
        words = [rng.choice(vocab) for _ in range(rng.randint(1, 8))]
        text = "".join(w + rng.choice([" ", " ", ""]) for w in words)
        cases.append([text, norm(text)])
    with open(os.path.join(d, "normalizer_cases.json"), "w") as f:
        json.dump(cases, f, indent=0, ensure_ascii=False)
        f.write("\n")


if __name__ == "__main__":
    dlrm()
    whisper()
    openimages()
    kits()
    if os.environ.get("INFERENCE_REPO"):
        squad()
