"""Grades one program against its LiveCodeBench tests inside the code
sandbox, as LiveCodeBench's testing_util.run_test grades it (written from
its published behaviour): tests.json holds inputs, outputs, fn_name (null
for a program that reads stdin) and timeout (the seconds a test may take,
LiveCodeBench's 60 where it is absent), solution.py the program. The last
line on stdout is the verdict: the nonce in argv[1], then PASS or FAIL and
the reason."""
import ast
import faulthandler
import json
import signal
import sys
from decimal import Decimal
from io import StringIO
from types import ModuleType
from unittest.mock import mock_open, patch

NONCE = sys.argv[1]
REAL_STDOUT = sys.stdout

STAR = ["string", "re", "datetime", "collections", "heapq", "bisect", "copy", "math", "random",
        "statistics", "itertools", "functools", "operator", "io", "sys", "json", "builtins", "typing"]
PLAIN = STAR[:16]
PRELUDE = "".join(f"from {m} import *\n" for m in STAR) + "".join(f"import {m}\n" for m in PLAIN) + \
    "sys.setrecursionlimit(50000)\n"
TIMEOUT = 60


def verdict(ok, why=""):
    REAL_STDOUT.write("\n" + NONCE + (" PASS" if ok else " FAIL " + why) + "\n")
    REAL_STDOUT.flush()
    sys.exit(0)


class Alarm(Exception):
    pass


def on_alarm(signum, frame):
    raise Alarm


def main_block_inlined(code):
    """A trailing `if __name__ == '__main__':` becomes its body."""
    try:
        tree = ast.parse(code)
        last = tree.body[-1]
        if isinstance(last, ast.If) and ast.unparse(last.test).strip() == "__name__ == '__main__'":
            return ast.unparse(tree.body[:-1]) + "\n" + ast.unparse(last.body)
    except Exception:
        pass
    return code


def as_function(code):
    """The imports stay at the top; the rest becomes wrapped_function's body."""
    try:
        tree = ast.parse(code)
        imports = [s for s in tree.body if isinstance(s, (ast.Import, ast.ImportFrom))]
        rest = [s for s in tree.body if not isinstance(s, (ast.Import, ast.ImportFrom))]
        fn = ast.FunctionDef(name="wrapped_function",
                             args=ast.arguments(posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[], defaults=[]),
                             body=rest, decorator_list=[], lineno=-1)
        return PRELUDE + "\n" + ast.unparse(imports) + "\n" + ast.unparse(fn)
    except Exception:
        return code


def load(code):
    signal.alarm(TIMEOUT)
    try:
        mod = ModuleType("tmp_sol", "")
        exec(code, mod.__dict__)
        return mod.Solution() if "class Solution" in code else mod
    finally:
        signal.alarm(0)


def disable_harmful():
    """What LiveCodeBench's reliability_guard takes from the program."""
    import builtins
    import os
    import shutil
    import subprocess
    faulthandler.disable()
    builtins.quit = None
    os.environ["OMP_NUM_THREADS"] = "1"
    for name in ["kill", "system", "putenv", "remove", "removedirs", "rmdir", "fchdir", "setuid", "fork", "forkpty",
                 "killpg", "rename", "renames", "truncate", "replace", "unlink", "fchmod", "fchown", "chmod", "chown",
                 "chroot", "lchflags", "lchmod", "lchown", "getcwd", "chdir"]:
        setattr(os, name, None)
    for name in ["rmtree", "move", "chown"]:
        setattr(shutil, name, None)
    subprocess.Popen = None
    builtins.help = None
    for name in ["ipdb", "joblib", "resource", "psutil", "tkinter"]:
        sys.modules[name] = None


def run_stdin(method, text):
    lines = iter(text.split("\n"))
    stdin = StringIO(text)
    stdin.buffer = type("B", (), {"read": lambda *a: text.encode(),
                                  "readline": lambda *a: text.encode().split(b"\n")[0] + b"\n"})()

    @patch("builtins.open", mock_open(read_data=text))
    @patch("sys.stdin", stdin)
    @patch("sys.stdin.readline", lambda *a: next(lines))
    @patch("sys.stdin.readlines", lambda *a: text.split("\n"))
    @patch("sys.stdin.read", lambda *a: text)
    def call(m):
        try:
            return m()
        except SystemExit:
            pass

    return call(method)


def lines_of(s):
    return [line.strip() for line in s.strip().split("\n")]


def decimals(line):
    try:
        return [Decimal(x) for x in line.split()]
    except Exception:
        return None


def grade_stdin(code, inputs, outputs):
    method = getattr(load(as_function(main_block_inlined(code))), "wrapped_function", None)
    if method is None:
        verdict(False, "no program")
    for inp, out in zip(inputs, outputs):
        if isinstance(inp, list):
            inp = "\n".join(inp)
        buf = StringIO()
        buf.close = lambda *a: 1
        saved, sys.stdout = sys.stdout, buf
        signal.alarm(TIMEOUT)
        try:
            run_stdin(method, inp)
        except Exception as e:
            sys.stdout = saved
            verdict(False, "error " + type(e).__name__)
        finally:
            signal.alarm(0)
            sys.stdout = saved
        got, want = lines_of(buf.getvalue()), lines_of(out)
        if len(got) != len(want):
            verdict(False, "wrong number of lines")
        for g, w in zip(got, want):
            if g == w:
                continue
            dg, dw = decimals(g), decimals(w)
            if dg is None or dw is None or dg != dw:
                verdict(False, "wrong answer")


def grade_call(code, inputs, outputs, fn_name):
    method = getattr(load(PRELUDE + "\n\n" + code), fn_name, None)
    if method is None:
        verdict(False, "no function " + fn_name)
    args = [[json.loads(line) for line in inp.split("\n")] for inp in inputs]
    wants = [json.loads(out) for out in outputs]
    for a, want in zip(args, wants):
        signal.alarm(TIMEOUT)
        try:
            got = method(*a)
            signal.alarm(0)
        except Exception as e:
            verdict(False, "error " + type(e).__name__)
        finally:
            signal.alarm(0)
        if isinstance(got, tuple):
            got = list(got)
        if got != want:
            verdict(False, "wrong answer")


def main():
    signal.signal(signal.SIGALRM, on_alarm)
    global TIMEOUT
    tests = json.load(open("tests.json"))
    TIMEOUT = int(tests.get("timeout") or TIMEOUT)
    code = open("solution.py").read()
    disable_harmful()
    try:
        if tests.get("fn_name") is None:
            grade_stdin(code, tests["inputs"], tests["outputs"])
        else:
            grade_call(code, tests["inputs"], tests["outputs"], tests["fn_name"])
    except SystemExit:
        raise
    except BaseException as e:
        verdict(False, "error " + type(e).__name__)
    verdict(True)


main()
