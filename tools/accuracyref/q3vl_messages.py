"""Checks qwen3-vl's requests against the reference's: renders the chat
messages that task.py's ShopifyGlobalCatalogue.formulate_loaded_sample
builds (its `messages = [...]` expression, read from the file's syntax
tree and evaluated, since the module needs the LoadGen, openai and more
to import) for the fixture's first products, and compares them with
mlperf-host's golden messages (messages.json, one JSON array a line).
The texts must be identical. The image parts differ by design: the
reference re-saves the decoded image with PIL, mlperf-host sends the data
set's bytes; both must name the same format and decode, with PIL, to the
same pixels. ProductMetadata is q3vl_evaluate.py's stand-in for the
schema module. Needs pydantic 2 and PIL (Debian's python3-pil).

Usage: q3vl_messages.py TASK_PY RECORDS_JSON MESSAGES_JSON
Prints "q3vl messages: identical (N products)" or what differs."""

import ast
import base64
import io
import json
import os
import sys

from PIL import Image

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from q3vl_evaluate import ProductMetadata  # noqa: E402


def messages_expr(task_py):
    tree = ast.parse(open(task_py).read())
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == "formulate_loaded_sample":
            for stmt in node.body:
                if isinstance(stmt, ast.Assign) and getattr(stmt.targets[0], "id", "") == "messages":
                    return compile(ast.Expression(stmt.value), task_py, "eval")
    raise SystemExit("task.py: no messages = [...] in formulate_loaded_sample")


def image_of(url):
    head, data = url.split(",", 1)
    raw = base64.b64decode(data)
    img = Image.open(io.BytesIO(raw))
    return head, img.format, img.convert("RGBA").tobytes(), img.size


def main():
    task_py, records, golden = sys.argv[1:4]
    expr = messages_expr(task_py)
    rows = json.load(open(records))
    ours = [json.loads(line) for line in open(golden) if line.strip()]
    bad = 0
    for i, got in enumerate(ours):
        _, fmt, _, _ = image_of(got[1]["content"][1]["image_url"]["url"])
        # The reference's image: the decoded image re-saved by PIL.
        src = base64.b64decode(got[1]["content"][1]["image_url"]["url"].split(",", 1)[1])
        pil = Image.open(io.BytesIO(src))
        buf = io.BytesIO()
        pil.save(buf, format=pil.format)
        sample = dict(rows[i])
        want = eval(expr, {"json": json, "ProductMetadata": ProductMetadata}, {  # noqa: S307
            "sample": sample, "image_format": pil.format,
            "image_base64_string": base64.b64encode(buf.getvalue()).decode("utf-8")})
        want_img = want[1]["content"][1]["image_url"]["url"]
        got_img = got[1]["content"][1]["image_url"]["url"]
        want[1]["content"][1]["image_url"]["url"] = got[1]["content"][1]["image_url"]["url"] = "IMAGE"
        if want != got:
            bad += 1
            print(f"product {i}: the messages' texts differ:\nreference: {json.dumps(want)}\nours:      {json.dumps(got)}")
        w, g = image_of(want_img), image_of(got_img)
        if w[0] != g[0] or w[2:] != g[2:]:
            bad += 1
            print(f"product {i}: the images differ: reference {w[0]} {w[3]}, ours {g[0]} {g[3]}")
    if not bad:
        print(f"q3vl messages: identical ({len(ours)} products)")


if __name__ == "__main__":
    main()
