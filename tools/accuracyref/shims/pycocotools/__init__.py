"""A stand-in for pycocotools (not packaged by Debian), enough for the
official accuracy-openimages.py: COCO annotations, loadRes, and COCOeval's
bounding-box evaluation, written from COCO's published evaluation
algorithm for tools/accuracyref/verify.sh."""
