#!/usr/bin/python3
"""Run the official submission checker and `mlperf-host submit --check-only`
over a published results repository and print where they agree.

A result is one scenario directory, DIVISION/SUBMITTER/results/SYSTEM/
BENCHMARK/SCENARIO, as the official checker counts them ("Results PATH" when
it accepts one, "NoResults PATH" when it refuses it). The script:

1. takes the results repository (--results: a checkout, or a bare clone such
   as the mirror a fetch brings, which it copies out file by file into
   WORK/results; a mirror may lack files of 4 MiB and more, and those are
   listed in WORK/results.absent) and the official tools (--inference: a
   checkout or a bare clone of mlcommons/inference);
2. leaves out the directories --exclude names (a submitter's whole tree,
   "open/GATEOverflow" by default for its size) and the results for which
   the copy lacks a file a checker opens (a log, a verdict, a power file):
   neither checker can judge those, and the table lists them apart;
3. runs the official checker, `python3 -m submission_checker.main --input
   VIEW --version ROUND`, on a view of the tree (symbolic links, without what
   step 2 left out), and `mlperf-host submit --check-only --json --round
   ROUND --submission VIEW`;
4. prints a line per result (the official verdict, mlperf-host's, whether
   they agree and, when both accept it, whether the result metric is the
   same), then the counts. It exits 1 when any verdict differs.

With --trees DIR instead of --results, each directory in DIR is a tree of
its own (the published trees broken one way each, which internal/submission's
tests write with -broken-out DIR): both checkers run on each, and the table
has a line per result of each tree. A tree the official checker stops on
(a Python exception before its summary) counts as refusing all its results.

With --reports, it then runs `mlperf-host report` on every directory of the
tree that holds a mlperf_log_detail.txt (performance, accuracy, audit and
ranging runs) and counts those it fails on; with --reports-only it does only
that (no --inference needed).

Usage: /usr/bin/python3 scripts/submission/sweep_submissions.py --results PATH --inference PATH
       --binary bin/mlperf-host --work DIR [--round v5.1] [--exclude open/GATEOverflow]
`make sweep-submissions RESULTS=PATH INFERENCE=PATH` runs it; `make sweep-broken INFERENCE=PATH`
the broken trees.
"""

import argparse
import json
import math
import os
import re
import shutil
import subprocess
import sys

from verify_submission import checkout

# The files either checker opens: a result missing one of these in the copy
# cannot be judged. (mlperf_log_trace.json, images and code are not opened.)
OPENED = {
    "mlperf_log_detail.txt", "mlperf_log_summary.txt", "mlperf_log_accuracy.json", "accuracy.txt",
    "verify_accuracy.txt", "verify_performance.txt", "verify_output_len.txt", "baseline_accuracy.txt",
    "compliance_accuracy.txt", "spl.txt", "ptd_logs.txt", "client.json", "client.log", "server.json",
    "server.log", "user.conf", "README.md",
}
RESULT_LINE = re.compile(r"\] Results (\S+) (\S+)$")
NO_RESULT_LINE = re.compile(r"\] NoResults (\S+)$")
PERF_SUFFIX = "/performance/run_1/mlperf_log_detail.txt"


def git(gitdir, *args, **kw):
    return subprocess.run(["git", "--git-dir", gitdir, *args], capture_output=True, check=True, **kw).stdout


def copy_out(gitdir, dest, exclude):
    """Copies HEAD of a bare clone into dest file by file (git archive stops
    at the first blob a mirror lacks); returns the paths it lacked."""
    head = git(gitdir, "rev-parse", "HEAD", text=True).strip()[:8]
    stamp = os.path.join(dest + ".commit")
    absent_list = dest + ".absent"
    if os.path.exists(stamp) and open(stamp).read().strip() == head:
        return head, [line for line in open(absent_list).read().splitlines() if line]
    shutil.rmtree(dest, ignore_errors=True)
    entries = []
    for e in git(gitdir, "ls-tree", "-r", "-z", "HEAD").split(b"\0"):
        if not e:
            continue
        meta, path = e.split(b"\t", 1)
        mode, kind, sha = meta.split()
        path = path.decode()
        if kind != b"blob" or any(path == x or path.startswith(x + "/") for x in exclude):
            continue
        entries.append((mode, sha, path))
    cat = subprocess.Popen(["git", "--git-dir", gitdir, "cat-file", "--batch"], stdin=subprocess.PIPE,
                           stdout=subprocess.PIPE)
    absent = []
    for mode, sha, path in entries:
        cat.stdin.write(sha + b"\n")
        cat.stdin.flush()
        header = cat.stdout.readline().split()
        if header[1] == b"missing":
            absent.append(path)
            continue
        data = cat.stdout.read(int(header[2]))
        cat.stdout.read(1)
        target = os.path.join(dest, path)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        if mode == b"120000":
            os.symlink(data.decode(), target)
        else:
            with open(target, "wb") as f:
                f.write(data)
    cat.stdin.close()
    cat.wait()
    with open(absent_list, "w") as f:
        f.write("".join(p + "\n" for p in absent))
    with open(stamp, "w") as f:
        f.write(head + "\n")
    return head, absent


def list_dirs(path):
    try:
        return sorted(e for e in os.listdir(path) if os.path.isdir(os.path.join(path, e)))
    except OSError:
        return []


def results_of(tree, exclude):
    """Every scenario directory, as the official loader walks them."""
    out = []
    for div in list_dirs(tree):
        if div not in ("closed", "open", "network"):
            continue
        for sub in list_dirs(os.path.join(tree, div)):
            if f"{div}/{sub}" in exclude:
                continue
            base = os.path.join(tree, div, sub, "results")
            for system in list_dirs(base):
                for bench in list_dirs(os.path.join(base, system)):
                    for sc in list_dirs(os.path.join(base, system, bench)):
                        out.append(f"{div}/{sub}/results/{system}/{bench}/{sc}")
    return out


def unjudgeable(results, absent):
    """The results whose scenario directories (results, compliance,
    measurements) lack a file a checker opens, with that file; and the
    other results of their benchmark directory, whose verdicts depend on
    the scenarios beside them (check_scenarios)."""
    out = {}
    for path in absent:
        if os.path.basename(path) not in OPENED:
            continue
        parts = path.split("/")
        if len(parts) < 7 or parts[2] not in ("results", "compliance", "measurements"):
            continue
        bench = "/".join(parts[:2] + ["results"] + parts[3:5]) + "/"
        for r in results:
            if r.startswith(bench):
                out.setdefault(r, path)
    return out


def make_view(tree, view, results, left_out):
    """A tree of symbolic links to tree, without the results left out."""
    shutil.rmtree(view, ignore_errors=True)
    wanted = set(results) - set(left_out)
    for div in sorted({r.split("/")[0] for r in results}):
        for sub in sorted({r.split("/")[1] for r in results if r.startswith(div + "/")}):
            src = os.path.join(tree, div, sub)
            dst = os.path.join(view, div, sub)
            os.makedirs(dst)
            for e in os.listdir(src):
                if e != "results":
                    os.symlink(os.path.join(src, e), os.path.join(dst, e))
            for system in list_dirs(os.path.join(src, "results")):
                for e in os.listdir(os.path.join(src, "results", system)):
                    s = os.path.join(src, "results", system, e)
                    d = os.path.join(dst, "results", system, e)
                    os.makedirs(os.path.dirname(d), exist_ok=True)
                    if not os.path.isdir(s):
                        os.symlink(s, d)
                        continue
                    # A benchmark whose results are all left out is left out
                    # whole: its scenarios are checked together.
                    kept = [sc for sc in os.listdir(s) if f"{div}/{sub}/results/{system}/{e}/{sc}" in wanted]
                    if not kept and any(os.path.isdir(os.path.join(s, sc)) for sc in os.listdir(s)):
                        continue
                    os.makedirs(d)
                    for sc in os.listdir(s):
                        if not os.path.isdir(os.path.join(s, sc)) or sc in kept:
                            os.symlink(os.path.join(s, sc), os.path.join(d, sc))


def official(inference, view, work, round_, results=None):
    tools = os.path.join(inference, "tools", "submission")
    log = os.path.join(work, "official.log")
    with open(log, "w") as f:
        r = subprocess.run([sys.executable, "-m", "submission_checker.main", "--input", view, "--version", round_,
                            "--csv", os.path.join(work, "official.csv")], cwd=tools, stdout=f,
                           stderr=subprocess.STDOUT)
    verdicts = {}
    text = open(log, encoding="utf-8", errors="replace").read()
    for line in text.splitlines():
        for pattern, accepted in ((RESULT_LINE, True), (NO_RESULT_LINE, False)):
            m = pattern.search(line)
            if m and m.group(1).endswith(PERF_SUFFIX):
                key = os.path.relpath(m.group(1)[: -len(PERF_SUFFIX)], view)
                verdicts[key] = (accepted, float(m.group(2)) if accepted else None)
    if "SUMMARY: submission" not in text:
        if results is None:
            sys.exit(f"the official checker stopped (exit {r.returncode}); see {log}")
        # It stopped on the tree: no result of it counts.
        return {res: (False, None) for res in results}
    return verdicts


def ours(binary, view, work, round_):
    out = os.path.join(work, "mlperf-host.json")
    with open(out, "w") as f:
        r = subprocess.run([binary, "submit", "--check-only", "--json", "--round", round_, "--submission", view],
                           stdout=f, stderr=subprocess.PIPE, text=True)
    if r.returncode not in (0, 10):
        sys.exit(f"mlperf-host submit --check-only failed (exit {r.returncode}): {r.stderr.strip()}")
    report = json.load(open(out))
    verdicts = {}
    for res in report["results"]:
        verdicts[res["result"]] = (res["accepted"], res.get("metric"), res.get("problems", []))
    return verdicts, report.get("problems", [])


def same_metric(a, b):
    return a is not None and b is not None and math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-9)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--results", help="published results repository: a checkout or a bare clone")
    p.add_argument("--trees", help="a directory of trees, each checked on its own")
    p.add_argument("--inference", help="mlcommons/inference: a checkout or a bare clone")
    p.add_argument("--binary", required=True, help="mlperf-host")
    p.add_argument("--work", required=True)
    p.add_argument("--round", default="v5.1")
    p.add_argument("--exclude", default="open/GATEOverflow",
                   help="comma-separated DIVISION/SUBMITTER trees to leave out")
    p.add_argument("--reports", action="store_true", help="also report on every detail-log directory")
    p.add_argument("--reports-only", action="store_true", help="only report on every detail-log directory")
    p.add_argument("--only", help="comma-separated DIVISION/SUBMITTER trees to check (a subset while developing)")
    args = p.parse_args()
    work = os.path.abspath(args.work)
    os.makedirs(work, exist_ok=True)
    ours_rev = revision(".")  # the commit the binary was built from, before any run
    exclude = [x for x in args.exclude.split(",") if x]

    if args.reports_only:
        inference = None
    elif not args.inference:
        sys.exit("give --inference")
    else:
        inference = checkout(args.inference, os.path.join(work, "inference"))
    if args.trees:
        sys.exit(sweep_trees(args, inference, os.path.abspath(args.binary), work))
    if not args.results:
        sys.exit("give --results or --trees")
    if os.path.isdir(os.path.join(args.results, "closed")) or os.path.isdir(os.path.join(args.results, "open")):
        tree, commit, absent = args.results, revision(args.results), []
    else:
        tree = os.path.join(work, "results")
        commit, absent = copy_out(args.results, tree, exclude)
    if args.reports_only:
        sys.exit(reports(os.path.abspath(args.binary), tree, work, exclude, commit))
    results = results_of(tree, exclude)
    if args.only:
        only = args.only.split(",")
        results = [r for r in results if "/".join(r.split("/")[:2]) in only]
    left_out = unjudgeable(set(results), absent)
    view = os.path.join(work, "view")
    make_view(tree, view, results, left_out)

    theirs = official(inference, view, work, args.round)
    mine, tree_problems = ours(os.path.abspath(args.binary), view, work, args.round)

    counts = {"agree": 0, "false positive": 0, "false negative": 0, "metric differs": 0}
    word = {True: "accept", False: "refuse", None: "none"}
    for r in sorted(set(results) - set(left_out)):
        t = theirs.get(r, (None, None))
        o = mine.get(r, (None, None, []))
        if t[0] is None or o[0] is None:
            mark = "MISSING"
            counts.setdefault("missing", 0)
            counts["missing"] += 1
        elif t[0] == o[0]:
            mark = "agree"
            counts["agree"] += 1
            if t[0] and not same_metric(t[1], o[1]):
                mark = f"agree, METRIC {t[1]} vs {o[1]}"
                counts["metric differs"] += 1
        elif o[0] is False:
            mark = "FALSE POSITIVE: " + "; ".join(o[2][:2])
            counts["false positive"] += 1
        else:
            mark = "FALSE NEGATIVE"
            counts["false negative"] += 1
        print(f"{r}\tofficial {word[t[0]]}\tmlperf-host {word[o[0]]}\t{mark}")
    for r, path in sorted(left_out.items()):
        print(f"{r}\tleft out: the copy lacks {path}")
    for prob in tree_problems:
        print(f"tree problem: {prob}")
    judged = len(results) - len(left_out)
    acc = sum(1 for r in results if r not in left_out and theirs.get(r, (None,))[0])
    print(f"\nresults repository at {commit}; official checker of mlcommons/inference at {revision(args.inference)}, "
          f"--version {args.round}; mlperf-host {ours_rev}")
    print(f"{len(results)} results, {len(left_out)} left out (the copy lacks a file a checker opens), "
          f"{judged} judged: official accepts {acc}, refuses {judged - acc}")
    print(", ".join(f"{k} {v}" for k, v in counts.items()))
    bad = counts["false positive"] + counts["false negative"] + counts.get("missing", 0)
    if args.reports:
        bad += reports(os.path.abspath(args.binary), tree, work, exclude, commit)
    sys.exit(1 if bad else 0)


def reports(binary, tree, work, exclude, commit):
    """mlperf-host report on every detail-log directory of tree; the number it failed on."""
    dirs = []
    for top, _, names in os.walk(tree):
        rel = os.path.relpath(top, tree)
        if "mlperf_log_detail.txt" in names and not any(rel == x or rel.startswith(x + "/") for x in exclude):
            dirs.append(top)
    dirs.sort()
    page = os.path.join(work, "report.html")
    failed = []
    for d in dirs:
        r = subprocess.run([binary, "report", "--html", page, d], capture_output=True, text=True)
        if r.returncode != 0:
            failed.append((os.path.relpath(d, tree), r.returncode, r.stderr.strip().splitlines()[0] if r.stderr else ""))
    for d, rc, msg in failed:
        print(f"report failed (exit {rc}): {d}: {msg}")
    print(f"report: {len(dirs)} detail-log directories of the results repository at {commit}, {len(failed)} failed")
    return len(failed)


def sweep_trees(args, inference, binary, work):
    """Both checkers on every tree in args.trees; 1 when any verdict differs."""
    bad = judged = 0
    for name in list_dirs(args.trees):
        tree = os.path.abspath(os.path.join(args.trees, name))
        out = os.path.join(work, name)
        os.makedirs(out, exist_ok=True)
        results = results_of(tree, [])
        theirs = official(inference, tree, out, args.round, results)
        mine, _ = ours(binary, tree, out, args.round)
        for r in results:
            (t, tm), o = theirs.get(r, (None, None)), mine.get(r, (None, None, []))
            same = t is not None and t == o[0]
            mark = "agree" if same else "DISAGREE: " + "; ".join(o[2][:2])
            if same and t and not same_metric(tm, o[1]):
                mark, same = f"agree, METRIC {tm} vs {o[1]}", False
            word = {True: "accept", False: "refuse", None: "none"}
            print(f"{name}\t{r}\tofficial {word[t]}\tmlperf-host {word[o[0]]}\t{mark}")
            judged += 1
            bad += not same
    print(f"\n{len(list_dirs(args.trees))} trees, {judged} results, {bad} verdicts or metrics differ")
    return 1 if bad else 0


def revision(repo):
    """The commit a checkout or bare clone is at, or "(unknown)"."""
    for flag in ("-C", "--git-dir"):
        r = subprocess.run(["git", flag, repo, "rev-parse", "HEAD"], capture_output=True, text=True)
        if r.returncode == 0:
            rev = r.stdout.strip()[:8]
            dirty = subprocess.run(["git", flag, repo, "status", "--porcelain", "--untracked-files=no"],
                                   capture_output=True, text=True).stdout.strip()
            return rev + (" with uncommitted changes" if flag == "-C" and dirty else "")
    return "(unknown)"


if __name__ == "__main__":
    main()
