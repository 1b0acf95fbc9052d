#!/usr/bin/python3
"""Extract the rules of MLPerf Inference rounds into mlperf-host's round tables.

mlperf-host keeps each round's rules as data (internal/benchmarks/rounds/
ROUND.json). This program reads them from a checkout or bare clone of the
official mlcommons/inference repository and writes those files, so that every
fact has one source a reader can check:

  - the submission checker's tables, tools/submission/submission_checker/
    constants.py (MODEL_CONFIG[round] and the module's other constants), read
    at the repository's HEAD: the checker a submitter runs with --version ROUND;
  - the official mlperf.conf of the round (loadgen/mlperf.conf at the round's
    commit, ROUNDS below): every setting it gives a model and scenario, with
    the line pattern that wins under LoadGen's own precedence;
  - the compliance tests' audit.config files of the round (TEST01, TEST07 and
    TEST09 per model, TEST04, TEST06);
  - the power checks' tables (the checker's checks/power/power_checker.py
    and sources_checksums.json at HEAD): the PTD versions, meters and replies
    it accepts, the files a power run holds, the PTD log messages it tolerates.

Usage (Debian's python3; nothing beyond the standard library):

  /usr/bin/python3 scripts/rounds/gen_rounds.py --repo PATH [--out DIR]

`make rounds INFERENCE_REPO=PATH` runs it; `make verify-rounds` runs it into
a temporary directory and fails when the committed tables differ.
"""

import argparse
import ast
import json
import os
import subprocess
import sys

# The commit whose mlperf.conf and audit.config files hold each round's rules:
# the v5.1 release tag; for v6.0 the last commit before the v6.1 seeds
# (b0662794 "Add random seeds for v6.1"); for v6.1 the repository's HEAD.
ROUNDS = {
    "v5.1": {"commit": "v5.1", "compliance": "compliance/nvidia"},
    "v6.0": {"commit": "b0662794^", "compliance": "compliance"},
    "v6.1": {"commit": "HEAD", "compliance": "compliance"},
}

CHECKER = "tools/submission/submission_checker/constants.py"
MLPERF_CONF = "loadgen/mlperf.conf"
CONFIGURATION = "tools/submission/submission_checker/configuration/configuration.py"
POWER_CHECKER = "tools/submission/submission_checker/checks/power/power_checker.py"
POWER_SOURCES = "tools/submission/submission_checker/checks/power/sources_checksums.json"
LOADGEN_VERSION = "loadgen/VERSION.txt"

# The checker names a model by its submission directory ("resnet",
# "bert-99"); mlperf.conf and the compliance directories by the LoadGen model
# name ("resnet50", "bert"). Models absent here have no mlperf.conf entry
# (the endpoints-only ones).
CONF_NAME = {
    "resnet": "resnet50",
    "retinanet": "retinanet",
    "bert-99": "bert",
    "bert-99.9": "bert",
    "dlrm-v2-99": "dlrm-v2",
    "dlrm-v2-99.9": "dlrm-v2",
    "3d-unet-99": "3d-unet",
    "3d-unet-99.9": "3d-unet",
    "llama3.1-8b": "llama3_1-8b",
    "llama3.1-8b-edge": "llama3_1-8b-edge",
    "llama2-70b-99": "llama2-70b",
    "llama2-70b-99.9": "llama2-70b",
    "stable-diffusion-xl": "stable-diffusion-xl",
    "mixtral-8x7b": "mixtral-8x7b",
    "llama3.1-405b": "llama3_1-405b",
    "rgat": "rgat",
    "pointpainting": "pointpainting",
    "deepseek-r1": "deepseek-r1",
    "whisper": "whisper",
    "gpt-oss-120b": "gpt-oss-120b",
    "wan-2.2-t2v-a14b": "wan-2.2-t2v-a14b",
    "qwen3-vl-235b-a22b": "qwen3-vl-235b-a22b",
    "dlrm-v3": "dlrm-v3",
    "yolo-95": "yolo",
    "yolo-99": "yolo",
}

SCENARIOS = ["SingleStream", "MultiStream", "Server", "Offline"]
CATEGORIES = {"edge": "edge", "datacenter": "datacenter", "datacenter,edge": "datacenter-edge"}
# Fractions the checker multiplies a reference score by.
FRACTIONS = {0.9, 0.95, 0.99, 0.999}


def git_show(repo, commit, path):
    r = subprocess.run(["git", "-C", repo, "show", f"{commit}:{path}"], capture_output=True, text=True)
    if r.returncode != 0:
        return None
    return r.stdout


def git_rev(repo, commit):
    return subprocess.run(["git", "-C", repo, "rev-parse", commit], capture_output=True, text=True,
                          check=True).stdout.strip()


def load_checker(src):
    """The checker's constants, and the source expressions of MODEL_CONFIG's accuracy targets."""
    ns = {}
    exec(compile(src, CHECKER, "exec"), ns)
    exprs = {}
    for node in ast.parse(src).body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "MODEL_CONFIG":
            for rk, rv in zip(node.value.keys, node.value.values):
                for sk, sv in zip(rv.keys, rv.values):
                    if ast.literal_eval(sk) in ("accuracy-target", "accuracy-upper-limit"):
                        exprs[(ast.literal_eval(rk), ast.literal_eval(sk))] = sv
    return ns, exprs


def split_target(expr):
    """Reference and fraction of one target expression: 76.46 * 0.99 -> (76.46, 0.99)."""
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Mult):
        left, right = eval(compile(ast.Expression(expr.left), "", "eval")), eval(
            compile(ast.Expression(expr.right), "", "eval"))
        if right in FRACTIONS or right == 1.1:
            return left, right
        if left in FRACTIONS or left == 1.1:
            return right, left
    return eval(compile(ast.Expression(expr), "", "eval")), 1.0


def targets(expr_tuple):
    """[(metric, reference, fraction)] of a checker target tuple's expression."""
    out = []
    elts = expr_tuple.elts
    for i in range(0, len(elts), 2):
        metric = ast.literal_eval(elts[i])
        ref, frac = split_target(elts[i + 1])
        out.append({"metric": metric, "reference": ref, "fraction": frac})
    return out


def parse_conf(text):
    """key -> (value, line pattern) of a LoadGen conf file, as LoadGen's own parser keeps them."""
    kv = {}
    for line in text.splitlines():
        words = line.split()
        k, state = None, 0
        for w in words:
            if w == "#" and state != 2:
                break
            if state == 2:
                kv[k] = w
                continue
            if state == 1 and w != "=":
                break
            if state == 0:
                k = w
            state += 1
    return kv


def delta_perc(cfg, model, metric):
    d = cfg["accuracy-delta-perc"].get(model, {})
    if metric in d:
        return d[metric]
    return 0.1 if "99.9" in model else 1


def round_table(repo, name, spec, ns, exprs, llm, power):
    cfg = ns["MODEL_CONFIG"][name]
    commit = spec["commit"]
    conf_text = git_show(repo, commit, MLPERF_CONF)
    conf = parse_conf(conf_text)
    comp = spec["compliance"]
    audit_configs = {}
    for t in ("TEST04", "TEST06"):
        text = git_show(repo, commit, f"{comp}/{t}/audit.config")
        if text is not None:
            audit_configs[t] = parse_conf(text)
    for t in ("TEST01", "TEST08"):
        for conf_name in sorted(set(CONF_NAME.values())):
            text = git_show(repo, commit, f"{comp}/{t}/{conf_name}/audit.config")
            if text is not None:
                audit_configs[f"{t}/{conf_name}"] = parse_conf(text)
    # TEST07 and TEST09 keep one audit.config per model, in a directory
    # named by the LoadGen model name or, for models mlperf.conf does not
    # list, the submission name.
    for t in ("TEST07", "TEST09"):
        for m in cfg["models"]:
            d = CONF_NAME.get(m) or m
            text = git_show(repo, commit, f"{comp}/{t}/{d}/audit.config")
            if text is not None:
                audit_configs[f"{t}/{d}"] = parse_conf(text)
    models = []
    all_tests = ["TEST01", "TEST04", "TEST06", "TEST07", "TEST08", "TEST09"]
    for m in cfg["models"]:
        conf_name = CONF_NAME.get(m, "")
        row = {"name": m, "conf_name": conf_name}
        for key, cat in CATEGORIES.items():
            req = cfg[f"required-scenarios-{cat}"].get(m)
            if req is not None:
                row.setdefault("required", {})[key] = req
            opt = cfg[f"optional-scenarios-{cat}"].get(m)
            if opt:
                row.setdefault("optional", {})[key] = opt
        tex = exprs[(name, "accuracy-target")]
        idx = [ast.literal_eval(k) for k in tex.keys].index(m)
        t = tex.values[idx]
        if isinstance(t, ast.Dict):
            row["accuracy_by_scenario"] = {ast.literal_eval(k): targets(v) for k, v in zip(t.keys, t.values)}
            first = next(iter(row["accuracy_by_scenario"].values()))
        else:
            row["accuracy"] = targets(t)
            first = row["accuracy"]
        row["delta_perc"] = {x["metric"]: delta_perc(cfg, m, x["metric"]) for x in first}
        uex = exprs.get((name, "accuracy-upper-limit"))
        ukeys = [ast.literal_eval(k) for k in uex.keys] if uex is not None else []
        if m in ukeys:
            lim = uex.values[ukeys.index(m)]
            row["upper_limits"] = [{"metric": x["metric"], "limit": cfg["accuracy-upper-limit"][m][2 * i + 1]}
                                   for i, x in enumerate(targets(lim))]
        row["performance_sample_count"] = cfg["performance-sample-count"][m]
        row["dataset_size"] = cfg["dataset-size"][m]
        asc = cfg["accuracy-sample-count"].get(m)
        if isinstance(asc, dict):
            row["accuracy_sample_count"] = asc
        elif asc is not None:
            row["accuracy_sample_count"] = {"*": asc}
        if m in cfg["latency-constraint"]:
            row["latency_constraint_ns"] = cfg["latency-constraint"][m]
        if m in cfg["min-queries"]:
            row["min_queries"] = cfg["min-queries"][m]
        spq = ns["OFFLINE_MIN_SPQ_SINCE_V4"].get(m)
        if spq is not None:
            row["offline_min_samples_per_query"] = spq
        if m in ns["LLM_LATENCY_LIMITS"]:
            row["token_latency_limits_ns"] = ns["LLM_LATENCY_LIMITS"][m]
        row["llm"] = m in llm
        row["audits"] = [t for t in all_tests if m in cfg.get(f"models_{t}", [])]
        overwrite = ns["RESULT_FIELD_BENCHMARK_OVERWRITE"].get(name, {}).get(m)
        if overwrite:
            row["result_fields"] = overwrite
        extra = ns["REQUIRED_ACC_BENCHMARK"].get(m, {}).get(name)
        if extra:
            row["accuracy_extra_files"] = extra
        models.append(row)

    paths = {}
    for const in ("PERFORMANCE_LOG_PATH", "PERFORMANCE_SUMMARY_PATH", "ACCURACY_LOG_PATH", "ACCURACY_RESULT_PATH",
                  "ACCURACY_JSON_PATH", "MEASUREMENTS_PATH", "TEST01_PERF_PATH", "TEST01_ACC_PATH",
                  "TEST04_PERF_PATH", "TEST06_ACC_PATH", "COMPLIANCE_PATH", "SYSTEM_PATH", "SRC_PATH",
                  "POWER_DIR_PATH"):
        table = ns[const]
        paths[const.lower()] = table.get(name, table["default"])
    if name in ns["NAMEPLATE_POWER_PATH"]:
        paths["nameplate_power_path"] = ns["NAMEPLATE_POWER_PATH"][name]
    return {
        "round": name,
        "sources": {
            "checker": f"{CHECKER} at {git_rev(repo, 'HEAD')[:8]}, MODEL_CONFIG[\"{name}\"] and module constants",
            "mlperf_conf": f"{MLPERF_CONF} at {git_rev(repo, commit)[:8]} ({commit})",
            "audit_config": f"{comp}/TEST0*/audit.config at {git_rev(repo, commit)[:8]}",
            "power": f"{POWER_CHECKER} and {os.path.basename(POWER_SOURCES)} at {git_rev(repo, 'HEAD')[:8]}",
        },
        "loadgen_version": git_show(repo, commit, LOADGEN_VERSION).strip(),
        "seeds": {k: str(v) for k, v in cfg["seeds"].items()},
        "paths": paths,
        "divisions": ns["VALID_DIVISIONS"],
        "availabilities": ns["VALID_AVAILABILITIES"],
        "system_required_fields": ns["SYSTEM_DESC_REQUIRED_FIELDS"],
        "system_meaningful_fields": ns["SYSTEM_DESC_MEANINGFUL_RESPONSE_REQUIRED_FIELDS"],
        "system_network_fields": ns["SYSTEM_DESC_REQUIRED_FIELDS_NETWORK_MODE"],
        "model_mapping": cfg.get("model_mapping", {}),
        "power": dict(power, performance_files=ns["REQUIRED_PERF_POWER_FILES"], power_files=ns["REQUIRED_POWER_FILES"],
                      optional_performance_files=ns["OPTIONAL_PERF_FILES"]),
        "measurements_fields": ns["SYSTEM_IMP_REQUIRED_FILES"],
        "measurements_files": ns["REQUIRED_MEASURE_FILES"],
        "performance_files": ns["REQUIRED_PERF_FILES"],
        "accuracy_files": ns["REQUIRED_ACC_FILES"],
        "compliance_performance_files": ns["REQUIRED_COMP_PER_FILES"],
        "test01_accuracy_files": ns["REQUIRED_TEST01_ACC_FILES"],
        "max_accuracy_log_size": ns["MAX_ACCURACY_LOG_SIZE"],
        "min_duration_ms": ns["TEST_DURATION_MS"],
        "result_fields": ns["RESULT_FIELD_NEW"][name],
        "accuracy_patterns": ns["ACC_PATTERN"],
        "early_stopping_scenarios": ["Server", "SingleStream", "MultiStream"],
        "mlperf_conf": conf,
        "audit_configs": audit_configs,
        "models": models,
    }


def power_tables(src, sources):
    """The power checks' tables: module constants of power_checker.py, the replies its
    ptd_messages_check expects (its check_reply calls, and the reply it expects of the
    third Stop), and the accepted source checksums."""
    ns = {}
    tree = ast.parse(src)
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            try:  # literals, and expressions of the constants before them
                ns[node.targets[0].id] = eval(compile(ast.Expression(node.value), POWER_CHECKER, "eval"),
                                              {"__builtins__": {}}, ns)
            except (NameError, AttributeError, TypeError):
                pass
    replies, third_stop = [], None
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "check_reply":
            replies.append([ast.literal_eval(a) for a in node.args])
        if isinstance(node, ast.FunctionDef) and node.name == "check_reply":
            for n in ast.walk(node):
                if isinstance(n, ast.Assign) and getattr(n.targets[0], "id", "") == "reply":
                    third_stop = ast.literal_eval(n.value)
    warn = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "WARNING_NEEDS_TO_BE_ERROR_TESTING_RE":
            warn = [ast.literal_eval(c.args[0]) for c in node.value.elts]
    if not replies or third_stop is None or not warn:
        sys.exit(f"{POWER_CHECKER}: its replies or warnings have moved")
    return {
        "ptd_versions": ns["SUPPORTED_VERSION"],
        "meters": ns["SUPPORTED_MODEL"],
        "result_paths": ns["RESULT_PATHS"],
        "ranging_errors": ns["COMMON_ERROR_RANGING"],
        "testing_errors": ns["COMMON_ERROR_TESTING"],
        "testing_warnings_as_errors": warn,
        "time_delta_tolerance_ms": ns["TIME_DELTA_TOLERANCE"],
        "replies": replies,
        "third_stop_reply": third_stop,
        "sources_checksums": json.loads(sources),
    }


def llm_models(src):
    """The list Config.get_llm_models returns in the checker's configuration module: the models whose runs
    must log token latencies."""
    for node in ast.walk(ast.parse(src)):
        if isinstance(node, ast.FunctionDef) and node.name == "get_llm_models":
            for stmt in node.body:
                if isinstance(stmt, ast.Return):
                    return ast.literal_eval(stmt.value)
    sys.exit(f"{CONFIGURATION}: no get_llm_models")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--repo", required=True, help="mlcommons/inference checkout or bare clone")
    p.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "..", "..", "internal", "benchmarks",
                                                   "rounds"))
    args = p.parse_args()
    src = git_show(args.repo, "HEAD", CHECKER)
    if src is None:
        sys.exit(f"{args.repo}: no {CHECKER} at HEAD")
    ns, exprs = load_checker(src)
    power = power_tables(git_show(args.repo, "HEAD", POWER_CHECKER), git_show(args.repo, "HEAD", POWER_SOURCES))
    os.makedirs(args.out, exist_ok=True)
    for name, spec in ROUNDS.items():
        table = round_table(args.repo, name, spec, ns, exprs, llm_models(git_show(args.repo, "HEAD", CONFIGURATION)),
                            power)
        with open(os.path.join(args.out, name + ".json"), "w") as f:
            json.dump(table, f, indent=1, sort_keys=True)
            f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
