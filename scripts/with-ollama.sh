#!/usr/bin/env bash
# Usage: with-ollama.sh COMMAND [ARG...]
#
# Starts OLLAMA_SERVERS (default 2) `ollama serve` processes on loopback
# ports the kernel picks, each with its own HOME and model store in a
# temporary directory and no cloud, writes the tests' tiny llama model
# (tools/tinyllama) and creates and loads it in every server as
# "tinyllama", then runs COMMAND with
#   OLLAMA_TEST_ENDPOINTS   the servers' base URLs, comma-separated
#   OLLAMA_TEST_MODEL       the model's name (tinyllama)
#   OLLAMA_TEST_DIR         the model's directory (model.gguf, tokenizer.json)
# and stops every server (and its runners) when COMMAND ends, fails or is
# interrupted. Exits with COMMAND's status.
#
# OLLAMA is the binary (default: what `make ollama` builds);
# OLLAMA_PARALLEL (default 4) the requests each server runs at once;
# OLLAMA_READY_TIMEOUT (default 60) the seconds a server may take to come up.
set -euo pipefail
cd "$(dirname "$0")/.."
: "${OLLAMA:=.cache/ollama/v0.17.4/bin/ollama}"
: "${OLLAMA_SERVERS:=2}"
: "${OLLAMA_PARALLEL:=4}"
: "${OLLAMA_READY_TIMEOUT:=60}"
[ $# -gt 0 ] || { echo "usage: with-ollama.sh COMMAND [ARG...]" >&2; exit 2; }
[ -x "$OLLAMA" ] || { echo "with-ollama: no Ollama binary at $OLLAMA (make ollama)" >&2; exit 1; }
ollama=$(cd "$(dirname "$OLLAMA")" && pwd)/$(basename "$OLLAMA")

tmp=$(mktemp -d "${TMPDIR:-/tmp}/with-ollama.XXXXXX")
pids=()
stop() {
  local pid i
  # Each server leads its own process group (setsid): the group holds its
  # runners too. TERM first (Ollama unloads and stops its runners), KILL
  # what is left after 10 s.
  for pid in "${pids[@]}"; do kill -TERM -- "-$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do
    for i in $(seq 100); do kill -0 -- "-$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL -- "-$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  rm -rf "$tmp"
}
trap stop EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

go run ./tools/tinyllama -dir "$tmp/model"

endpoints=()
for n in $(seq "$OLLAMA_SERVERS"); do
  home=$tmp/server$n
  mkdir -p "$home/models"
  HOME=$home OLLAMA_HOST=127.0.0.1:0 OLLAMA_MODELS=$home/models OLLAMA_NO_CLOUD=1 \
    OLLAMA_NUM_PARALLEL=$OLLAMA_PARALLEL OLLAMA_MAX_LOADED_MODELS=1 OLLAMA_KEEP_ALIVE=-1 \
    setsid "$ollama" serve >"$home/serve.log" 2>&1 &
  pids+=("$!")
done

# The port each server listens on, from its log; then its readiness.
deadline=$((SECONDS + OLLAMA_READY_TIMEOUT))
for n in $(seq "$OLLAMA_SERVERS"); do
  log=$tmp/server$n/serve.log
  addr=""
  while [ -z "$addr" ]; do
    addr=$(sed -n 's/.*Listening on \(127\.0\.0\.1:[0-9]*\).*/\1/p' "$log" | head -1)
    if [ -z "$addr" ]; then
      if [ $SECONDS -ge $deadline ] || ! kill -0 "${pids[n-1]}" 2>/dev/null; then
        echo "with-ollama: server $n did not start listening; its log:" >&2
        tail -20 "$log" >&2
        exit 1
      fi
      sleep 0.2
    fi
  done
  until curl -sf "http://$addr/api/version" >/dev/null; do
    [ $SECONDS -lt $deadline ] || { echo "with-ollama: server $n ($addr) not ready after ${OLLAMA_READY_TIMEOUT}s" >&2; exit 1; }
    sleep 0.2
  done
  HOME=$tmp/server$n OLLAMA_HOST=$addr "$ollama" create tinyllama -f "$tmp/model/Modelfile" >"$tmp/server$n/create.log" 2>&1 ||
    { echo "with-ollama: ollama create failed on server $n ($addr):" >&2; cat "$tmp/server$n/create.log" >&2; exit 1; }
  # Load the model now: a server that cannot run it fails here, with its log.
  curl -sf "http://$addr/api/generate" -d '{"model":"tinyllama","prompt":"a","stream":false,"options":{"num_predict":1}}' >/dev/null ||
    { echo "with-ollama: server $n ($addr) does not run the model; its log:" >&2; tail -30 "$tmp/server$n/serve.log" >&2; exit 1; }
  endpoints+=("http://$addr")
done

echo "with-ollama: ${#endpoints[@]} servers: ${endpoints[*]}"
# COMMAND runs in the background so that a signal to this script is
# handled at once (bash runs traps only between foreground commands): it
# is passed on as TERM (a background command ignores INT), COMMAND's
# status is this script's, and the EXIT trap stops the servers.
OLLAMA_TEST_ENDPOINTS=$(IFS=,; echo "${endpoints[*]}") OLLAMA_TEST_MODEL=tinyllama OLLAMA_TEST_DIR=$tmp/model \
  "$@" <&0 &
child=$!
trap 'kill -TERM "$child" 2>/dev/null || true' INT TERM
status=0
while :; do
  wait "$child" && status=0 || status=$?
  kill -0 "$child" 2>/dev/null || break # wait ended for a signal: COMMAND still runs
done
exit $status
