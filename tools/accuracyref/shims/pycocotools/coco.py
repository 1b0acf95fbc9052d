"""COCO annotation index (the part of pycocotools.coco the scripts use)."""
import copy
import json
from collections import defaultdict


class COCO:
    def __init__(self, annotation_file=None):
        self.dataset = {}
        if annotation_file is not None:
            with open(annotation_file) as f:
                self.dataset = json.load(f)
        self.createIndex()

    def createIndex(self):
        self.anns, self.imgs, self.cats = {}, {}, {}
        self.imgToAnns, self.catToImgs = defaultdict(list), defaultdict(list)
        for ann in self.dataset.get("annotations", []):
            self.imgToAnns[ann["image_id"]].append(ann)
            self.anns[ann["id"]] = ann
        if "annotations" in self.dataset and "categories" in self.dataset:
            for ann in self.dataset["annotations"]:
                self.catToImgs[ann["category_id"]].append(ann["image_id"])
        for img in self.dataset.get("images", []):
            self.imgs[img["id"]] = img
        for cat in self.dataset.get("categories", []):
            self.cats[cat["id"]] = cat

    def getImgIds(self):
        return list(self.imgs.keys())

    def getCatIds(self):
        return [c["id"] for c in self.dataset.get("categories", [])]

    def getAnnIds(self, imgIds, catIds):
        anns = [a for i in imgIds for a in self.imgToAnns.get(i, [])]
        cats = set(catIds)
        return [a["id"] for a in anns if a["category_id"] in cats]

    def loadAnns(self, ids):
        return [self.anns[i] for i in ids]

    def loadRes(self, resFile):
        res = COCO()
        res.dataset["images"] = list(self.dataset["images"])
        with open(resFile) as f:
            anns = json.load(f)
        img_ids = set(a["image_id"] for a in anns)
        assert img_ids <= set(self.getImgIds()), "results are not for images of the annotations"
        res.dataset["categories"] = copy.deepcopy(self.dataset["categories"])
        for i, a in enumerate(anns):
            x, y, w, h = a["bbox"]
            a["area"] = w * h
            a["id"] = i + 1
            a["iscrowd"] = 0
        res.dataset["annotations"] = anns
        res.createIndex()
        return res
