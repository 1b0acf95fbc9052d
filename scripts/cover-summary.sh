#!/usr/bin/env bash
# Prints the statements covered per package for two coverage profiles: the
# test binaries' alone (first) and with the plugin subprocesses' added
# (second). A block counts as covered when any run covered it.
set -euo pipefail
summarize() {
  awk 'NR > 1 {
         split($1, a, ":"); file = a[1]; key = $1
         if (!(key in seen)) { seen[key] = 1; stmts[key] = $2; pf[key] = file }
         if ($3 > 0) hit[key] = 1
       }
       END {
         for (k in seen) {
           pkg = pf[k]; sub(/\/[^\/]*$/, "", pkg); sub(/^github.com\/mlperf-host\/mlperf-host\//, "", pkg)
           total[pkg] += stmts[k]; if (k in hit) cov[pkg] += stmts[k]
         }
         for (p in total) printf "%s %.1f\n", p, 100 * cov[p] / total[p]
       }' "$1" | sort
}
printf '%-48s %12s %12s\n' package "tests alone" "+ plugins"
join -a 1 <(summarize "$1") <(summarize "$2") | awk '{ printf "%-48s %11s%% %11s%%\n", $1, $2, ($3 == "" ? $2 : $3) }'
