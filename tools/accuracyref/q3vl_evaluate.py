"""Runs the Qwen3-VL reference's evaluation.py (run_evaluation) unchanged
on an accuracy log. evaluation.py lives in a package whose other modules
need what is not installed here, so it is loaded as
mlperf_inf_mm_q3vl.evaluation beside a stand-in schema module that
declares ProductMetadata as the reference's schema.py does (three fields,
attribute docstrings, extra fields forbidden); datasets, loguru, rapidfuzz
and tabulate come from shims/q3vl. pydantic 2 and numpy/sklearn must be
importable. os.cpu_count is 4, as on any machine of four cores or more:
the evaluation's chunks, and so its random draws, depend on it.

Usage: Q3VL_RECORDS=records.json q3vl_evaluate.py EVALUATION_PY LOG
Prints the evaluation's log, then accuracy.txt's lines (it writes
accuracy.txt in a temporary directory)."""

import importlib.util
import os
import sys
import tempfile
import types

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "shims", "q3vl"))

from pydantic import BaseModel, ConfigDict  # noqa: E402


class ProductMetadata(BaseModel):
    """Json format for the expected responses from the VLM."""

    model_config = ConfigDict(use_attribute_docstrings=True, extra="forbid")

    category: str
    """The complete category of the product, e.g.,
    "Clothing & Accessories > Clothing > Shirts > Polo Shirts".
    Each categorical level is separated by " > ".
    """

    brand: str
    """The brand of the product, e.g., "giorgio armani"."""

    is_secondhand: bool
    """True if the product is second-hand, False otherwise."""


def main():
    evaluation, log = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    os.environ["Q3VL_RECORDS"] = os.path.abspath(os.environ["Q3VL_RECORDS"])
    pkg = types.ModuleType("mlperf_inf_mm_q3vl")
    pkg.__path__ = []
    schema = types.ModuleType("mlperf_inf_mm_q3vl.schema")
    schema.ProductMetadata = ProductMetadata
    sys.modules["mlperf_inf_mm_q3vl"] = pkg
    sys.modules["mlperf_inf_mm_q3vl.schema"] = schema
    spec = importlib.util.spec_from_file_location("mlperf_inf_mm_q3vl.evaluation", evaluation)
    mod = importlib.util.module_from_spec(spec)
    sys.modules["mlperf_inf_mm_q3vl.evaluation"] = mod
    spec.loader.exec_module(mod)
    os.cpu_count = lambda: 4
    dataset = types.SimpleNamespace(repo_id="Shopify/product-catalogue", token=None, split=["train", "test"])
    with tempfile.TemporaryDirectory() as d:
        os.chdir(d)
        mod.run_evaluation(random_seed=12345, filename=log, dataset=dataset)
        with open("accuracy.txt") as f:
            print(f.read())


if __name__ == "__main__":
    main()
