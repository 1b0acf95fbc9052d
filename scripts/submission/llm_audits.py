#!/usr/bin/python3
"""Judge the compliance directories mlperf-host's end-to-end tests wrote with the official scripts.

TestLLMAuditsEndToEnd and TestSubmitBenchmarksEndToEnd (cmd/mlperf-host) leave
their trees under --trees when MLPERF_HOST_AUDITS_KEEP names that directory.
For every TEST06, TEST07, TEST08 and TEST09 directory in them this program
runs the official run_verification.py
of mlcommons/inference (--inference: a checkout or bare clone) on the
responses the run logged (TESTnn/accuracy) and compares the verdict file it
writes with mlperf-host's, byte for byte:

  TEST06: compliance/TEST06/run_verification.py -c TEST06/accuracy -o OUT -s SCENARIO
          (its --eos_token_id left at its default, 2: a value given on its
          command line is a string, which no token equals)
  TEST07: compliance/TEST07/run_verification.py -c TEST07/accuracy -o OUT
          --audit-config TEST07/audit.config --accuracy-script "$(cat accuracy_script)"
          (the script may name $GPTOSS_EVAL, language/gpt-oss-120b's
          eval_mlperf_accuracy.py, and $ACCURACYREF_SHIMS,
          tools/accuracyref/shims, which stands in for transformers)
  TEST08: compliance/TEST08/run_verification.py -r accuracy/mlperf_log_accuracy.json
          -t TEST08/accuracy/mlperf_log_accuracy.json (its verdict on stdout)
  TEST09: compliance/TEST09/run_verification.py -c TEST09/accuracy -o OUT
          --audit-config TEST09/audit.config

TEST06 and TEST08 need numpy (Debian's python3-numpy). Exits 1 when a verdict differs.
"""

import argparse
import os
import subprocess
import sys
import tempfile

VERDICT = {"TEST06": "verify_accuracy.txt", "TEST07": "verify_accuracy.txt", "TEST08": "verify_accuracy.txt",
           "TEST09": "verify_output_len.txt"}


GPTOSS = "language/gpt-oss-120b"


def compliance_scripts(inference, tmp):
    """The compliance directory of a checkout, or of a bare clone's HEAD extracted into tmp
    (with gpt-oss-120b's accuracy scripts), and the checkout's directory."""
    if os.path.isdir(os.path.join(inference, "compliance")):
        return os.path.join(inference, "compliance"), inference
    out = os.path.join(tmp, "inference")
    os.makedirs(out)
    paths = ["compliance/TEST06/run_verification.py", "compliance/TEST07/run_verification.py",
             "compliance/TEST08/run_verification.py", "compliance/TEST09/run_verification.py",
             GPTOSS + "/eval_mlperf_accuracy.py", GPTOSS + "/eval_accuracy.py"]
    archive = subprocess.run(["git", "-C", inference, "archive", "HEAD"] + paths, capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", out], input=archive.stdout, check=True)
    return os.path.join(out, "compliance"), out


def directories(trees):
    """(test, scenario directory, accuracy script or None) of every compliance directory judged on its log."""
    for root, dirs, _ in os.walk(trees):
        for t in sorted(VERDICT):
            if t in dirs and os.path.isfile(os.path.join(root, t, "accuracy", "mlperf_log_accuracy.json")):
                script = None
                rel = os.path.relpath(root, trees).split(os.sep)
                top = os.path.join(trees, rel[0], "accuracy_script")
                if os.path.isfile(top):
                    with open(top) as f:
                        script = f.read().strip()
                yield t, root, script


def judge(comp, t, scen_dir, script):
    d = os.path.join(scen_dir, t)
    with open(os.path.join(d, VERDICT[t])) as f:
        ours = f.read()
    if t == "TEST08":
        r = subprocess.run([sys.executable, os.path.join(comp, t, "run_verification.py"),
                            "-r", os.path.join(scen_dir, "accuracy", "mlperf_log_accuracy.json"),
                            "-t", os.path.join(d, "accuracy", "mlperf_log_accuracy.json")], capture_output=True, text=True)
        return r.stdout, ours
    with tempfile.TemporaryDirectory() as out, tempfile.TemporaryDirectory() as cwd:
        args = [sys.executable, os.path.join(comp, t, "run_verification.py"), "-c", os.path.join(d, "accuracy"), "-o", out]
        if t == "TEST06":
            args += ["-s", os.path.basename(scen_dir)]
        else:
            args += ["--audit-config", os.path.join(d, "audit.config")]
        if t == "TEST07":
            args += ["--accuracy-script", script]
        subprocess.run(args, capture_output=True, cwd=cwd)
        with open(os.path.join(out, t, VERDICT[t])) as f:
            theirs = f.read()
    return theirs, ours


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--inference", required=True, help="mlcommons/inference checkout or bare clone")
    p.add_argument("--trees", required=True, help="the directory MLPERF_HOST_AUDITS_KEEP named")
    args = p.parse_args()
    bad = n = 0
    with tempfile.TemporaryDirectory() as tmp:
        comp, checkout = compliance_scripts(os.path.abspath(args.inference), tmp)
        os.environ["GPTOSS_EVAL"] = os.path.join(checkout, GPTOSS, "eval_mlperf_accuracy.py")
        os.environ["ACCURACYREF_SHIMS"] = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                                       "tools", "accuracyref", "shims")
        for t, scen_dir, script in directories(os.path.abspath(args.trees)):
            theirs, ours = judge(comp, t, scen_dir, script)
            n += 1
            last = ours.rstrip("\n").splitlines()[-1]
            rel = os.path.relpath(os.path.join(scen_dir, t), args.trees)
            if theirs == ours:
                print(f"{rel}: identical ({last})")
            else:
                bad += 1
                print(f"{rel}: DIFFERS\n--- official\n{theirs}--- mlperf-host\n{ours}")
    print(f"{n} compliance directories, {bad} differ")
    sys.exit(1 if bad or n == 0 else 0)


if __name__ == "__main__":
    main()
