#!/usr/bin/python3
"""Check mlperf-host's submission of the demo with the official MLCommons tools.

1. Runs `mlperf-host submit` for the bundled demo (fashion-mnist) in the closed
   division, once per category (edge: system box-edge; datacenter: system
   box-dc) into one tree, with the official minimum duration of every
   performance run (--min-duration-ms, default 600000; each of the 15 timed runs
   lasts that long): one `submit --scenarios S` per scenario, one after the
   other (--parallel: all at once; --server-beside: the Server one beside the
   others), each in a session of its own. --reuse skips the runs and checks
   the tree already there; --jobs reruns some scenarios into it; --retries N
   reruns a scenario whose own directory has problems, setting the attempt
   aside for step 4.
2. Runs the official submission checker of mlcommons/inference (--repo) on the
   tree with --version ROUND (--round, default v6.1), twice: as published,
   and as a copy in WORK whose tables also list fashion-mnist with the demo's own figures (its required
   scenarios, sample counts, accuracy target, Server bound, minimums and audits:
   `mlperf-host benchmarks --json fashion-mnist`). The demo is not an MLPerf
   model, so the published checker stops on its name; the copy sets aside only
   that. It fails unless the copy reports no error. Runs shorter than 600 s
   fail min_duration_check: the script counts those errors and checks again
   with a third copy whose TEST_DURATION_MS is --min-duration-ms.
3. Runs the official truncate_accuracy_log.py on the tree: it must change
   nothing (the tree's accuracy logs are already truncated, with their hashes).
4. Restores the accuracy logs as they were before truncation (the --backup tree
   of submit, which the official flow verifies before truncating) in a copy of
   the tree, and runs the official compliance/TEST01 and TEST04
   run_verification.py on every scenario, each compliance directory as the tree
   holds it (TEST0N/performance/run_1), and on the attempts --retries set
   aside; their verdicts must agree with the ones mlperf-host wrote.

Usage: /usr/bin/python3 scripts/submission/verify_submission.py --repo PATH --binary bin/mlperf-host --work DIR
`make verify-submission INFERENCE_REPO=PATH` runs it.
"""

import argparse
import filecmp
import json
import os
import re
import shutil
import subprocess
import sys

# The round's minimum duration of a performance run (the checker's TEST_DURATION_MS).
TEST_DURATION_MS = 600000
CATEGORIES = {"edge": "box-edge", "datacenter": "box-dc"}
SCENARIOS = {"edge": ["SingleStream", "MultiStream", "Offline"], "datacenter": ["Server", "Offline"]}

# Settings for the demo's runs (the rates are flags: what the machine
# sustains). The Server latency bound is the demo's own. The SingleStream
# target latency sits below the demo's (about 0.8 ms on an idle core): the
# LoadGen generates the queries of twice min_duration at that latency, and a
# run that answers faster than the target runs out of them before
# min_duration and is INVALID.
USER_CONF = """*.*.min_duration = {min_duration}
*.SingleStream.target_latency = 0.5
*.MultiStream.target_latency = 10
*.Server.target_qps = {server_qps}
*.Offline.target_qps = {offline_qps}
"""

# A 600 s MultiStream run has tens of thousands of queries; a short one
# only the 662 of the minimum, whose early-stopping estimate of the 99th
# percentile is the slowest query of the run: other work on a shared machine
# moves that by 40% from run to run, past the audits' 10% (TEST01) and 20%
# (TEST04). Short runs take more queries, and the estimate a query nearer
# the 99th percentile.
SHORT_MULTISTREAM = "*.MultiStream.min_query_count = 4000\n"

# What the machine cannot tell of itself (cooling, say); the rest is detected.
SYSTEM_DESC = """[system_desc]
cooling = "air"
host_networking_topology = "N/A (one node)"
host_memory_configuration = "{memory}"
hw_notes = "the machine mlperf-host's verify-submission ran on"
"""


def sh(cmd, cwd=None, check=True, capture=False):
    print("+ " + " ".join(cmd), flush=True)
    r = subprocess.run(cmd, cwd=cwd, text=True, capture_output=capture)
    if check and r.returncode != 0:
        if capture:
            print(r.stdout + r.stderr)
        sys.exit(f"failed ({r.returncode}): {' '.join(cmd)}")
    return r


def checkout(repo, dest):
    """The official tools: a work tree of repo (a checkout or a bare clone) at HEAD."""
    if os.path.isdir(os.path.join(repo, "tools", "submission")):
        return repo
    if not os.path.isdir(os.path.join(dest, "tools", "submission")):
        # File by file: a mirror may lack the blobs of large files elsewhere
        # in the tree, which git archive stops on.
        paths = subprocess.run(["git", "--git-dir", repo, "ls-tree", "-r", "--name-only", "HEAD", "--",
                                "tools/submission", "compliance"], capture_output=True, text=True, check=True).stdout
        for path in paths.split():
            blob = subprocess.run(["git", "--git-dir", repo, "cat-file", "blob", "HEAD:" + path], capture_output=True)
            if blob.returncode != 0:
                continue
            os.makedirs(os.path.join(dest, os.path.dirname(path)), exist_ok=True)
            with open(os.path.join(dest, path), "wb") as f:
                f.write(blob.stdout)
    return dest


def memory_configuration():
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemTotal:"):
                return "%.0f GB (a virtual machine: no SMBIOS memory records)" % (int(line.split()[1]) * 1024 / 1e9)
    return "unknown"


def run_submissions(args, tree, backup):
    conf = os.path.join(args.work, "demo.conf")
    with open(conf, "w") as f:
        f.write(USER_CONF.format(min_duration=args.min_duration_ms, server_qps=args.server_qps,
                                 offline_qps=args.offline_qps))
        if args.min_duration_ms < TEST_DURATION_MS:
            f.write(SHORT_MULTISTREAM)
    cfg = os.path.join(args.work, "system.toml")
    with open(cfg, "w") as f:
        f.write(SYSTEM_DESC.format(memory=memory_configuration()))
    jobs = []
    for cat, system in CATEGORIES.items():
        for sc in SCENARIOS[cat]:
            cmd = [args.binary, "submit", "--submission", tree, "--backup", backup, "--round", args.round, "--config", cfg,
                   "--user-conf", conf, "--progress", "never", "--set", "division=closed", "--set", "submitter=acme",
                   "--set", "system=" + system, "--set", "category=" + cat, "--set", "host.instances=1",
                   "--scenarios", sc]
            jobs.append((f"{cat}-{sc}", cmd))
    if args.jobs:
        jobs = [(name, cmd) for name, cmd in jobs if name in args.jobs.split(",")]
    # Each submit runs in a session of its own (the kernel's autogroup
    # scheduling shares the CPUs between sessions as between users); a
    # scenario's accuracy, performance, TEST01 and TEST04 runs follow one
    # another, each lasting its full duration. --parallel starts them all
    # at once, --server-beside starts the Server one beside the others,
    # which run one at a time.
    beside = [j for j in jobs if args.parallel or (args.server_beside and j[0].endswith("-Server"))]
    queue = [j for j in jobs if j not in beside]
    running = [(start(args, name, cmd), cmd) for name, cmd in beside]
    for name, cmd in queue:
        retry(args, finish(start(args, name, cmd)), cmd, tree, backup)
    for r, cmd in running:
        retry(args, finish(r), cmd, tree, backup)


def start(args, name, cmd):
    server = name.endswith("-Server")
    if server and args.server_rt:
        # A latency-bound run that uses little CPU: first in line (root only).
        cmd = ["chrt", "--fifo", "1"] + cmd
    log = open(os.path.join(args.work, name + ".log"), "w")
    print("+ " + " ".join(cmd) + " > " + log.name, flush=True)
    p = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    nice = args.nice if not server or not args.server_rt else 0
    if nice:
        # The session's share of the CPUs (root only for a negative value).
        with open(f"/proc/{p.pid}/autogroup", "w") as f:
            f.write(str(nice))
    return name, p, log


def finish(job):
    """The name of the job, and the problems submit found in the directory
    of its own scenario (None: none)."""
    name, p, log = job
    # submit exits 10 when its own check finds problems, also when the other
    # scenarios' directories are still on their way; 8 when a run is
    # INVALID. The official checker's verdict below is the one reported.
    p.wait()
    log.close()
    with open(log.name) as f:
        text = f.read()
    system = CATEGORIES[name.split("-")[0]]
    scenario = name.split("-", 1)[1]
    own = [line for line in text.splitlines()
           if line.startswith("problem: ") and f"/results/{system}/" in line and f"/{scenario}/" in line]
    print(f"{name}: submit exited {p.returncode}" + (f", {len(own)} problems in its scenario" if own else ""),
          flush=True)
    return name, (own or None) if p.returncode in (0, 10) else [f"submit exited {p.returncode}"]


def retry(args, result, cmd, tree, backup):
    """Reruns a scenario whose own directory has problems, at most
    --retries times: on a shared machine an audit compares two runs that
    other work slowed by different amounts, and a latency bound meets a
    machine that other work took away. Every attempt is in the output, and
    each one set aside (WORK/attempts/NAME.tryN: its scenario directory and its
    backup) has its audits verified by the official scripts too."""
    name, problems = result
    for attempt in range(args.retries):
        if not problems:
            return
        for line in problems:
            print(f"  {line}")
        print(f"{name}: rerun {attempt + 1} of at most {args.retries}", flush=True)
        label = f"{name}.try{attempt + 1}"
        os.replace(os.path.join(args.work, name + ".log"), os.path.join(args.work, label + ".log"))
        system, scenario = CATEGORIES[name.split("-")[0]], name.split("-", 1)[1]
        rel = os.path.join("closed", "acme", "results", system, "fashion-mnist", scenario)
        kept = os.path.join(args.work, "attempts", label)
        shutil.rmtree(kept, ignore_errors=True)
        for src, dst in ((tree, "submission"), (backup, "submission.backup")):
            if os.path.isdir(os.path.join(src, rel)):
                shutil.copytree(os.path.join(src, rel), os.path.join(kept, dst, rel))
        name, problems = finish(start(args, name, cmd))


def patched_checker(tools, work, demo, min_duration_ms=None):
    """A copy of the checker whose tables also list the demo; with
    min_duration_ms, one whose 600 s minimum duration is that instead."""
    dst = os.path.join(work, "checker" if min_duration_ms is None else "checker-short")
    shutil.rmtree(dst, ignore_errors=True)
    shutil.copytree(os.path.join(tools, "tools", "submission", "submission_checker"), os.path.join(dst, "submission_checker"))
    name = demo["name"]
    targets = []
    for t in demo["accuracy_targets"]:
        targets += [t["metric"], t["target"]]
    patch = f"""

# verify_submission.py: the demo benchmark, which no MLPerf round lists,
# with its own figures (mlperf-host benchmarks --json {name}).
_cfg = MODEL_CONFIG[{demo["round"]!r}]
_cfg["models"].append({name!r})
for _cat, _key in (("edge", "edge"), ("datacenter", "datacenter"), ("datacenter,edge", "datacenter-edge")):
    if _cat in {demo["required"]!r}:
        _cfg["required-scenarios-" + _key][{name!r}] = {demo["required"]!r}[_cat]
_cfg["accuracy-target"][{name!r}] = {tuple(targets)!r}
_cfg["performance-sample-count"][{name!r}] = {demo["performance_sample_count"]!r}
_cfg["dataset-size"][{name!r}] = {demo["dataset_size"]!r}
_cfg["latency-constraint"][{name!r}] = {demo.get("latency_constraint_ns", {})!r}
_cfg["min-queries"][{name!r}] = {demo.get("min_queries", {})!r}
for _t in {demo["audits"]!r}:
    _cfg["models_" + _t].append({name!r})
OFFLINE_MIN_SPQ_SINCE_V4[{name!r}] = {demo["offline_min_samples_per_query"]!r}
"""
    if min_duration_ms is not None:
        patch += f"""
# verify_submission.py --min-duration-ms: runs shorter than the round's
# 600 s, which min_duration_check holds them to instead.
TEST_DURATION_MS = {min_duration_ms!r}
"""
    with open(os.path.join(dst, "submission_checker", "constants.py"), "a") as f:
        f.write(patch)
    print("checker patch (appended to a copy of constants.py):" + patch)
    return dst


# The checker's line for a run shorter than TEST_DURATION_MS
# (performance_check.py min_duration_check).
SHORT_RUN = re.compile(r"Test duration less than 600s in user config")


def run_checker(parent, tree, csv, round_):
    r = sh([sys.executable, "-m", "submission_checker.main", "--input", os.path.abspath(tree), "--version", round_,
            "--csv", csv], cwd=parent, check=False, capture=True)
    out = r.stdout + r.stderr
    errors = [line for line in out.splitlines() if re.search(r"\bERROR\b", line)]
    return out, errors, "SUMMARY: submission looks OK" in out


def truncation_noop(tools, tree, work):
    out = os.path.join(work, "truncated")
    shutil.rmtree(out, ignore_errors=True)
    sh([sys.executable, os.path.join(tools, "tools", "submission", "truncate_accuracy_log.py"), "--input", tree,
        "--submitter", "acme", "--output", out], capture=True)
    diffs = []

    def walk(c):
        diffs.extend(os.path.join(c.left, f) for f in c.diff_files + c.left_only + c.right_only)
        for sub in c.subdirs.values():
            walk(sub)
    walk(filecmp.dircmp(tree, out))
    return diffs


def restore(tree, backup, work):
    """A copy of the tree with the accuracy logs as they were before truncation."""
    dst = os.path.join(work, "untruncated")
    shutil.rmtree(dst, ignore_errors=True)
    shutil.copytree(tree, dst)
    for root, _, files in os.walk(backup):
        for f in files:
            src = os.path.join(root, f)
            shutil.copy(src, os.path.join(dst, os.path.relpath(src, backup)))
    return dst


def verdict(path):
    """Whether a verify_*.txt passed (None: no file), and its lines that carry
    the verdict: the scores and TEST lines (the official scripts' logging
    lines, with times and paths, left out)."""
    try:
        with open(path) as f:
            text = f.read()
    except OSError:
        return None, []
    keep = [line for line in text.splitlines()
            if re.match(r"(?i)(reference score|test score|num_|TEST (PASS|FAIL))", line)]
    return "TEST PASS" in text, keep


def compliance(tools, tree, work):
    rows = []
    for root, dirs, _ in sorted(os.walk(tree)):
        for test in ("TEST01", "TEST04"):
            if test not in dirs:
                continue
            sc_dir = root
            out = os.path.join(work, "official", os.path.relpath(sc_dir, tree))
            os.makedirs(out, exist_ok=True)
            cmd = [sys.executable, os.path.join(tools, "compliance", test, "run_verification.py"), "-r", sc_dir,
                   "-c", os.path.join(sc_dir, test, "performance", "run_1"), "-o", out]
            if test == "TEST01":
                cmd += ["--dtype", "float32"]
            scratch = os.path.join(work, "scratch")
            os.makedirs(scratch, exist_ok=True)
            sh(cmd, cwd=scratch, capture=True)
            for name in (["verify_accuracy.txt"] if test == "TEST01" else []) + ["verify_performance.txt"]:
                ours, our_lines = verdict(os.path.join(sc_dir, test, name))
                theirs, their_lines = verdict(os.path.join(out, test, name))
                rows.append((os.path.relpath(sc_dir, tree), test, name, ours, theirs, our_lines == their_lines))
    return rows


def agreement(rows, prefix):
    """Prints each verdict of mlperf-host beside the official one; whether
    they all agree, scores and counts included."""
    word = {True: "PASS", False: "FAIL", None: "missing"}
    ok = True
    for sc, test, name, ours, theirs, same in rows:
        mark = "agree" if ours == theirs and ours is not None else "DISAGREE"
        lines = "the same scores and counts" if same else "OTHER scores or counts"
        print(f"{prefix}{sc} {test} {name}: mlperf-host {word[ours]}, official {word[theirs]}: {mark}, {lines}")
        ok &= ours == theirs and ours is not None and same
    return ok


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--repo", required=True, help="mlcommons/inference checkout or bare clone")
    p.add_argument("--binary", required=True)
    p.add_argument("--work", required=True, help="directory for the tree and the tools' outputs")
    p.add_argument("--round", default="v6.1", help="the round of the submission and of the checker (v6.0, v6.1)")
    p.add_argument("--min-duration-ms", type=int, default=600000)
    p.add_argument("--server-qps", type=float, default=50)
    p.add_argument("--offline-qps", type=float, default=1000,
                   help="Offline target_qps: at least the throughput the machine gives, or the run ends early")
    p.add_argument("--nice", type=int, default=0,
                   help="the submissions' sessions' niceness (negative: ahead of other sessions; root only)")
    p.add_argument("--server-rt", action="store_true",
                   help="run the Server submission under SCHED_FIFO priority 1 (root only)")
    p.add_argument("--server-beside", action="store_true",
                   help="run the Server submission beside the others, which run one at a time")
    p.add_argument("--jobs", help="only these submissions (edge-SingleStream,datacenter-Server,...), "
                   "into the tree already there")
    p.add_argument("--parallel", action="store_true", help="every submission at once")
    p.add_argument("--retries", type=int, default=0,
                   help="rerun a scenario whose own directory has problems (a run INVALID, an audit FAIL) "
                   "at most this many times")
    p.add_argument("--reuse", action="store_true", help="check the tree already in WORK")
    args = p.parse_args()
    args.binary = os.path.abspath(args.binary)
    args.work = os.path.abspath(args.work)
    os.makedirs(args.work, exist_ok=True)
    tools = checkout(args.repo, os.path.join(args.work, "inference"))
    tree, backup = os.path.join(args.work, "submission"), os.path.join(args.work, "submission.backup")
    if not args.reuse:
        if not args.jobs:
            shutil.rmtree(tree, ignore_errors=True)
            shutil.rmtree(backup, ignore_errors=True)
            shutil.rmtree(os.path.join(args.work, "attempts"), ignore_errors=True)
        run_submissions(args, tree, backup)

    ok = True
    print("\n== 2. the official checker, as published")
    out, errors, _ = run_checker(os.path.join(tools, "tools", "submission"), tree,
                                 os.path.join(args.work, "published.csv"), args.round)
    with open(os.path.join(args.work, "checker-published.log"), "w") as f:
        f.write(out)
    print(f"{len(errors)} ERROR lines (checker-published.log); it ends:")
    print("\n".join(out.splitlines()[-3:]))

    demo = json.loads(sh([args.binary, "benchmarks", "--round", args.round, "--json", "fashion-mnist"], capture=True).stdout)[0]
    parent = patched_checker(tools, args.work, demo)
    print("== 2. the official checker, with the demo in its tables")
    out, errors, looks_ok = run_checker(parent, tree, os.path.join(args.work, "summary.csv"), args.round)
    with open(os.path.join(args.work, "checker.log"), "w") as f:
        f.write(out)
    short = [line for line in errors if SHORT_RUN.search(line)]
    if args.min_duration_ms < TEST_DURATION_MS and errors:
        # Runs shorter than 600 s: min_duration_check fails on each
        # performance log (the main run's and each audit's), and the lines
        # that gather its verdict (the path's performance and compliance
        # checks failed, no result) follow. Say how many (checker.log holds
        # them); the copy below holds the tree to the runs' own duration,
        # every other check as published, so what remains is the rest.
        print(f"checker: {len(errors)} ERROR lines (checker.log), {len(short)} of them min_duration_check's "
              f"'Test duration less than 600s' (the runs last {args.min_duration_ms} ms)")
        parent = patched_checker(tools, args.work, demo, args.min_duration_ms)
        print(f"== 2. the official checker, with the demo in its tables and a {args.min_duration_ms} ms minimum duration")
        out, errors, looks_ok = run_checker(parent, tree, os.path.join(args.work, "summary-short.csv"), args.round)
        with open(os.path.join(args.work, "checker-short.log"), "w") as f:
            f.write(out)
    for line in errors:
        print(line)
    print("\n".join(out.splitlines()[-14:]))
    print(f"checker: {len(errors)} ERROR lines, {'SUMMARY: submission looks OK' if looks_ok else 'submission has errors'}")
    ok &= looks_ok and not errors

    print("\n== 3. truncate_accuracy_log.py")
    diffs = truncation_noop(tools, tree, args.work)
    print("no file changed" if not diffs else "changed: " + ", ".join(diffs))
    ok &= not diffs

    print("\n== 4. compliance/TEST01 and TEST04 run_verification.py")
    rows = compliance(tools, restore(tree, backup, args.work), args.work)
    ok &= agreement(rows, "")
    attempts = os.path.join(args.work, "attempts")
    for label in sorted(os.listdir(attempts)) if os.path.isdir(attempts) else []:
        # An attempt set aside by --retries: its verdicts (FAIL, often)
        # must agree too. Where one of its runs was INVALID, submit stopped
        # there and wrote no verdict: nothing to compare.
        work = os.path.join(attempts, label)
        rows = compliance(tools, restore(os.path.join(work, "submission"), os.path.join(work, "submission.backup"),
                                         work), work)
        for sc, test, name, _, theirs, _ in (r for r in rows if r[3] is None):
            print(f"{label}: {sc} {test} {name}: mlperf-host wrote none (a run of the attempt was INVALID), "
                  f"official {'PASS' if theirs else 'FAIL' if theirs is False else 'missing'}")
        ok &= agreement([r for r in rows if r[3] is not None], label + ": ")
    print("\nverify-submission: " + ("ok" if ok else "FAILED"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
