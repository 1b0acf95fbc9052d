"""Stand-in for the Hugging Face datasets library's load_dataset, for
evaluation.py: the records of a data set's ground truth from a JSON file
($Q3VL_RECORDS, a list of row objects in the data set's order), indexable
as a Dataset is. Reading the Parquet form itself is mlperf-host's part;
this hands the official evaluation the same rows."""

import json
import os


class Records:
    def __init__(self, rows):
        self.rows = rows

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, i):
        return self.rows[i]


def load_dataset(repo_id, token=None, split=None, revision=None):
    with open(os.environ["Q3VL_RECORDS"]) as f:
        return Records(json.load(f))
