#!/usr/bin/env bash
# Rebuilds the committed WASM fixtures from echo.wat (needs wat2wasm, Debian
# package wabt). The variants differ from echo.wat by one edit each; the
# tests say what each one checks.
set -euo pipefail
cd "$(dirname "$0")"
variant() { # name sed-expression
  sed -e "$2" echo.wat >"$1.wat.tmp"
  if cmp -s echo.wat "$1.wat.tmp"; then echo "gen.sh: edit for $1 changed nothing" >&2; exit 1; fi
  wat2wasm "$1.wat.tmp" -o "$1.wasm"
  rm "$1.wat.tmp"
}
wat2wasm echo.wat -o echo.wasm
variant badversion 's/(i32.const 0x10000))/(i32.const 0x20000))/'
variant badsig 's/(export "mlperf_v1_close") (param i32 i32)/(export "mlperf_v1_close") (param i64 i32)/'
variant noclose '/export "mlperf_v1_close"/d'
variant command 's/(export "_initialize")/(export "_start")/'
variant extraimport 's/^  (memory /  (import "mlperf_host_v1" "teleport" (func (param i32)))\n  (import "env" "now" (func (result i64)))\n  (memory /'
variant bigmemory 's/(memory (export "memory") 2)/(memory (export "memory") 2000)/'
variant v2 's/mlperf_v1_/mlperf_v2_/g'
