"""COCOeval for iouType "bbox" with the default parameters, in numpy."""
import numpy as np


class Params:
    def __init__(self):
        self.imgIds = []
        self.catIds = []
        self.iouThrs = np.linspace(0.5, 0.95, 10, endpoint=True)
        self.recThrs = np.linspace(0.0, 1.00, 101, endpoint=True)
        self.maxDets = [1, 10, 100]
        self.areaRng = [[0, 1e5 ** 2], [0, 32 ** 2], [32 ** 2, 96 ** 2], [96 ** 2, 1e5 ** 2]]


def box_iou(d, g, crowd):
    """IoU matrix of detections d and ground truths g, boxes x, y, w, h."""
    out = np.zeros((len(d), len(g)))
    for j, gb in enumerate(g):
        for i, db in enumerate(d):
            w = min(db[0] + db[2], gb[0] + gb[2]) - max(db[0], gb[0])
            h = min(db[1] + db[3], gb[1] + gb[3]) - max(db[1], gb[1])
            if w <= 0 or h <= 0:
                continue
            inter = w * h
            union = db[2] * db[3] if crowd[j] else db[2] * db[3] + gb[2] * gb[3] - inter
            out[i, j] = inter / union
    return out


class COCOeval:
    def __init__(self, cocoGt, cocoDt, iouType="bbox"):
        assert iouType == "bbox"
        self.cocoGt, self.cocoDt = cocoGt, cocoDt
        self.params = Params()
        self.params.imgIds = sorted(cocoGt.getImgIds())
        self.params.catIds = sorted(cocoGt.getCatIds())
        self.stats = []

    def evaluate(self):
        p = self.params
        p.imgIds = list(np.unique(p.imgIds))
        p.catIds = list(np.unique(p.catIds))
        gts = self.cocoGt.loadAnns(self.cocoGt.getAnnIds(p.imgIds, p.catIds))
        dts = self.cocoDt.loadAnns(self.cocoDt.getAnnIds(p.imgIds, p.catIds))
        self._gts, self._dts = {}, {}
        for g in gts:
            g["ignore"] = int(g.get("iscrowd", 0))
            self._gts.setdefault((g["image_id"], g["category_id"]), []).append(g)
        for d in dts:
            self._dts.setdefault((d["image_id"], d["category_id"]), []).append(d)
        self.evalImgs = [
            self.evaluateImg(i, c, a, p.maxDets[-1])
            for c in p.catIds for a in p.areaRng for i in p.imgIds
        ]

    def evaluateImg(self, imgId, catId, aRng, maxDet):
        p = self.params
        gt = self._gts.get((imgId, catId), [])
        dt = self._dts.get((imgId, catId), [])
        if not gt and not dt:
            return None
        for g in gt:
            g["_ignore"] = 1 if (g["ignore"] or g["area"] < aRng[0] or g["area"] > aRng[1]) else 0
        gt = [gt[i] for i in np.argsort([g["_ignore"] for g in gt], kind="mergesort")]
        dt = [dt[i] for i in np.argsort([-d["score"] for d in dt], kind="mergesort")][:maxDet]
        crowd = [int(g["iscrowd"]) for g in gt]
        ious = box_iou([d["bbox"] for d in dt], [g["bbox"] for g in gt], crowd)
        T, G, D = len(p.iouThrs), len(gt), len(dt)
        gtm, dtm, dtIg = np.zeros((T, G)), np.zeros((T, D)), np.zeros((T, D))
        gtIg = np.array([g["_ignore"] for g in gt])
        if G and D:
            for t, thr in enumerate(p.iouThrs):
                for di, d in enumerate(dt):
                    best, m = min(thr, 1 - 1e-10), -1
                    for gi in range(G):
                        if gtm[t, gi] > 0 and not crowd[gi]:
                            continue
                        if m > -1 and gtIg[m] == 0 and gtIg[gi] == 1:
                            break
                        if ious[di, gi] < best:
                            continue
                        best, m = ious[di, gi], gi
                    if m == -1:
                        continue
                    dtIg[t, di] = gtIg[m]
                    dtm[t, di] = gt[m]["id"]
                    gtm[t, m] = d["id"]
        out = np.array([d["area"] < aRng[0] or d["area"] > aRng[1] for d in dt]).reshape((1, D))
        dtIg = np.logical_or(dtIg, np.logical_and(dtm == 0, np.repeat(out, T, 0)))
        return {"dtMatches": dtm, "dtScores": [d["score"] for d in dt], "gtIgnore": gtIg, "dtIgnore": dtIg}

    def accumulate(self):
        p = self.params
        T, R, K, A, M = len(p.iouThrs), len(p.recThrs), len(p.catIds), len(p.areaRng), len(p.maxDets)
        precision = -np.ones((T, R, K, A, M))
        I = len(p.imgIds)
        for k in range(K):
            for a in range(A):
                for m, maxDet in enumerate(p.maxDets):
                    E = [self.evalImgs[k * A * I + a * I + i] for i in range(I)]
                    E = [e for e in E if e is not None]
                    if not E:
                        continue
                    scores = np.concatenate([e["dtScores"][:maxDet] for e in E])
                    order = np.argsort(-scores, kind="mergesort")
                    dtm = np.concatenate([e["dtMatches"][:, :maxDet] for e in E], axis=1)[:, order]
                    dtIg = np.concatenate([e["dtIgnore"][:, :maxDet] for e in E], axis=1)[:, order]
                    gtIg = np.concatenate([e["gtIgnore"] for e in E])
                    npig = np.count_nonzero(gtIg == 0)
                    if npig == 0:
                        continue
                    tps = np.cumsum(np.logical_and(dtm, np.logical_not(dtIg)), axis=1).astype(float)
                    fps = np.cumsum(np.logical_and(np.logical_not(dtm), np.logical_not(dtIg)), axis=1).astype(float)
                    for t in range(T):
                        rc = tps[t] / npig
                        pr = (tps[t] / (fps[t] + tps[t] + np.spacing(1))).tolist()
                        for i in range(len(pr) - 1, 0, -1):
                            pr[i - 1] = max(pr[i - 1], pr[i])
                        q = np.zeros(R)
                        for ri, pi in enumerate(np.searchsorted(rc, p.recThrs, side="left")):
                            if pi >= len(pr):
                                break
                            q[ri] = pr[pi]
                        precision[t, :, k, a, m] = q
        self.precision = precision

    def summarize(self):
        s = self.precision[:, :, :, 0, 2]
        mean = np.mean(s[s > -1]) if np.any(s > -1) else -1
        print(" Average Precision  (AP) @[ IoU=0.50:0.95 | area=   all | maxDets=100 ] = %0.3f" % mean)
        self.stats = np.array([mean])
