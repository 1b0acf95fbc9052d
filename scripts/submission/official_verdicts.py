#!/usr/bin/python3
"""Record what the official compliance scripts say of mlperf-host's verification fixtures.

internal/submission/testdata/verify holds cases for TEST01 (accuracy and
performance), TEST04, TEST06, TEST07 and TEST09. For each case this program runs the official
script of mlcommons/inference (a checkout: --repo) and writes its output to
the case's want.txt, which internal/submission's tests compare with
mlperf-host's verdicts:

  test01acc/CASE:  compliance/TEST01/verify_accuracy.py --dtype DTYPE -r accuracy.json -t compliance.json
  test01perf/CASE: compliance/TEST01/verify_performance.py -r ref/mlperf_log_detail.txt -t test/mlperf_log_detail.txt
  test04/CASE:     compliance/TEST04/verify_performance.py -r ref_summary.txt -t test_summary.txt
  (each run in the case's directory)
  test06/CASE:     compliance/TEST06/run_verification.py -c CASE -o OUT -s SCENARIO (want.txt: OUT/TEST06/verify_accuracy.txt)
  test07/CASE:     compliance/TEST07/run_verification.py -c CASE -o OUT --audit-config audit.config
                   --accuracy-script "cat output.txt" (output.txt: what an accuracy script printed; want.txt:
                   OUT/TEST07/verify_accuracy.txt)
  test09/CASE:     compliance/TEST09/run_verification.py -c CASE -o OUT --audit-config audit.config
                   (want.txt: OUT/TEST09/verify_output_len.txt)

The verify_performance.py scripts log to stderr through Python's logging
(timestamps, paths); those lines are left out. With --check it writes nothing
and fails when a want.txt differs from what the scripts say now.
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile

LOGGING = re.compile(r"^(\[.*\] |INFO:|WARNING:root|WARNING:MLPerfLog)")


def run(args, cwd=None):
    r = subprocess.run([sys.executable, "-u"] + args, capture_output=True, text=True, cwd=cwd)
    out = r.stdout + r.stderr
    # sys.exit("message") ends the output; tracebacks are kept whole.
    return "".join(line for line in out.splitlines(keepends=True) if not LOGGING.match(line))


def cases(base, kind):
    d = os.path.join(base, kind)
    return sorted((name, os.path.join(d, name)) for name in os.listdir(d))


def verdicts(repo, base):
    comp = os.path.abspath(os.path.join(repo, "compliance"))
    out = {}
    # Each script runs in its case's directory on relative paths: a path
    # the script prints is then the same on every machine.
    for name, d in cases(base, "test01acc"):
        dtype = open(os.path.join(d, "dtype")).read().strip()
        out[d] = run([os.path.join(comp, "TEST01", "verify_accuracy.py"), "--dtype", dtype,
                      "-r", "accuracy.json", "-t", "compliance.json"], cwd=d)
    for name, d in cases(base, "test01perf"):
        out[d] = run([os.path.join(comp, "TEST01", "verify_performance.py"),
                      "-r", "ref/mlperf_log_detail.txt", "-t", "test/mlperf_log_detail.txt"], cwd=d)
    for name, d in cases(base, "test04"):
        out[d] = run([os.path.join(comp, "TEST04", "verify_performance.py"),
                      "-r", "ref_summary.txt", "-t", "test_summary.txt"], cwd=d)
    for name, d in cases(base, "test06"):
        scenario = open(os.path.join(d, "scenario")).read().strip()
        with tempfile.TemporaryDirectory() as tmp:
            run([os.path.join(comp, "TEST06", "run_verification.py"), "-c", d, "-o", tmp, "-s", scenario])
            with open(os.path.join(tmp, "TEST06", "verify_accuracy.txt")) as f:
                out[d] = f.read()
    # TEST07 and TEST09 write their verdict into the working directory
    # before they copy it to OUT/TESTnn: each runs in a temporary one.
    for name, d in cases(base, "test07"):
        with tempfile.TemporaryDirectory() as tmp:
            run([os.path.join(comp, "TEST07", "run_verification.py"), "-c", os.path.abspath(d), "-o", tmp,
                 "--audit-config", os.path.abspath(os.path.join(d, "audit.config")),
                 "--accuracy-script", "cat " + os.path.abspath(os.path.join(d, "output.txt"))], cwd=tmp)
            with open(os.path.join(tmp, "TEST07", "verify_accuracy.txt")) as f:
                out[d] = f.read()
    for name, d in cases(base, "test09"):
        with tempfile.TemporaryDirectory() as tmp:
            run([os.path.join(comp, "TEST09", "run_verification.py"), "-c", os.path.abspath(d), "-o", tmp,
                 "--audit-config", os.path.abspath(os.path.join(d, "audit.config"))], cwd=tmp)
            with open(os.path.join(tmp, "TEST09", "verify_output_len.txt")) as f:
                out[d] = f.read()
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--repo", required=True, help="mlcommons/inference checkout")
    p.add_argument("--dir", default=os.path.join(os.path.dirname(__file__), "..", "..", "internal", "submission",
                                                 "testdata", "verify"))
    p.add_argument("--check", action="store_true", help="compare with want.txt instead of writing it")
    args = p.parse_args()
    bad = 0
    for d, text in verdicts(args.repo, args.dir).items():
        want = os.path.join(d, "want.txt")
        if args.check:
            old = open(want).read() if os.path.exists(want) else None
            if old != text:
                print(f"{want}: the official script now says:\n{text}")
                bad += 1
        else:
            with open(want, "w") as f:
                f.write(text)
    if args.check:
        print(f"{'FAIL' if bad else 'ok'}: {bad} verification fixtures differ from the official scripts")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
