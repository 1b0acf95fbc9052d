;; echo.wat: a hand-written ABI v1 guest for the host's WASM tests. It needs
;; no toolchain but wat2wasm (make host-testdata rebuilds echo.wasm).
;;
;; Each sample completes with its 8-byte little-endian sample index as data.
;; Fault injection: when the first record of an issue call has the sample
;; index 0xFA0000_MM, mode MM applies to the whole call:
;;   01 trap (unreachable)          02 loop forever
;;   03 grow memory until refused, print Go's OOM message, exit(2)
;;   04 complete unknown ids        05 complete every id twice
;;   06 forget the last sample      07 fail samples with odd indices
;;   08 proc_exit(3)                09 print a panic to stderr, exit(2)
;;   10 first tokens, then completions with n_tokens=5
;;   11 complete with a record pointer out of bounds
;;   12 log at every level, then echo
;; load fails with INVALID_ARGUMENT when the model bytes start with "fail",
;; loops forever when they start with "loop", and succeeds but makes close
;; loop forever when they start with "hang".
(module
  (import "mlperf_host_v1" "reply" (func $reply (param i32 i32)))
  (import "mlperf_host_v1" "complete" (func $complete (param i32 i32) (result i32)))
  (import "mlperf_host_v1" "first_token" (func $first_token (param i32 i32) (result i32)))
  (import "mlperf_host_v1" "log" (func $log (param i32 i32 i32)))
  (import "wasi_snapshot_preview1" "proc_exit" (func $proc_exit (param i32)))
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))

  (memory (export "memory") 2)
  (global $heap (mut i32) (i32.const 65536))
  (global $scratch (mut i32) (i32.const 0))
  (global $mode (mut i32) (i32.const 0))
  (global $close_hangs (mut i32) (i32.const 0))

  ;; InfoResponse{abi 1.0, name "watecho", version "0.1.0", description,
  ;; capabilities FLUSH|WARMUP|FIRST_TOKEN, max_batch 64}
  (data (i32.const 1024) "\10\01\22\07\77\61\74\65\63\68\6f\2a\05\30\2e\31\2e\30\32\15\68\61\6e\64\2d\77\72\69\74\74\65\6e\20\57\41\54\20\65\63\68\6f\38\07\48\40")
  ;; LoadResponse{status{INVALID_ARGUMENT, "model rejected"}}
  (data (i32.const 1100) "\0a\12\08\03\12\0emodel rejected")
  (data (i32.const 2048) "bad sample")
  (data (i32.const 2100) "fatal error: out of memory\n")
  (data (i32.const 2140) "panic: boom\n")
  (data (i32.const 2160) "debug line")
  (data (i32.const 2176) "info line")
  (data (i32.const 2192) "warn line")
  (data (i32.const 2208) "error line")
  (data (i32.const 2224) "load: looping forever")

  (func (export "_initialize"))
  (func (export "mlperf_v1_abi_version") (result i32) (i32.const 0x10000))

  ;; A bump allocator; free does nothing.
  (func $alloc (export "mlperf_v1_alloc") (param $size i32) (result i32)
    (local $p i32) (local $end i32) (local $have i32)
    (local.set $p (i32.and (i32.add (global.get $heap) (i32.const 7)) (i32.const -8)))
    (local.set $end (i32.add (local.get $p) (local.get $size)))
    (if (i32.lt_u (local.get $end) (local.get $p)) (then (return (i32.const 0))))
    (local.set $have (i32.mul (memory.size) (i32.const 65536)))
    (if (i32.gt_u (local.get $end) (local.get $have))
      (then
        (if (i32.eq
              (memory.grow (i32.shr_u (i32.add (i32.sub (local.get $end) (local.get $have)) (i32.const 65535)) (i32.const 16)))
              (i32.const -1))
          (then (return (i32.const 0))))))
    (global.set $heap (local.get $end))
    (local.get $p))
  (func (export "mlperf_v1_free") (param i32))

  (func (export "mlperf_v1_info") (param i32 i32) (result i32)
    (call $reply (i32.const 1024) (i32.const 45))
    (i32.const 0))
  (func (export "mlperf_v1_load") (param $req i32) (param $len i32) (result i32)
    (local $head i32)
    (if (i32.lt_u (local.get $len) (i32.const 6)) (then (return (i32.const 0))))
    (local.set $head (i32.load offset=2 align=1 (local.get $req)))
    (if (i32.eq (local.get $head) (i32.const 0x6c696166)) ;; "fail"
      (then
        (call $reply (i32.const 1100) (i32.const 20))
        (return (i32.const 3))))
    (if (i32.eq (local.get $head) (i32.const 0x706f6f6c)) ;; "loop": say so (at WARN), then loop
      (then
        (call $log (i32.const 4) (i32.const 2224) (i32.const 21))
        (loop $forever (br $forever))))
    (if (i32.eq (local.get $head) (i32.const 0x676e6168)) ;; "hang"
      (then (global.set $close_hangs (i32.const 1))))
    (i32.const 0))
  (func (export "mlperf_v1_load_samples") (param i32 i32) (result i32) (i32.const 0))
  (func (export "mlperf_v1_unload_samples") (param i32 i32) (result i32) (i32.const 0))
  (func (export "mlperf_v1_warmup") (param i32 i32) (result i32) (i32.const 0))
  (func (export "mlperf_v1_flush") (result i32) (i32.const 0))
  (func (export "mlperf_v1_close") (param i32 i32) (result i32) (if (global.get $close_hangs) (then (loop $forever (br $forever)))) (i32.const 0))

  ;; stderr writes len bytes at ptr to fd 2.
  (func $stderr (param $ptr i32) (param $len i32)
    (i32.store (i32.const 2300) (local.get $ptr))
    (i32.store (i32.const 2304) (local.get $len))
    (drop (call $fd_write (i32.const 2) (i32.const 2300) (i32.const 1) (i32.const 2308))))

  ;; deliver hands n records of the scratch buffer to the host.
  (func $deliver (param $n i32)
    (if (i32.eqz (local.get $n)) (then (return)))
    (if (i32.eq (global.get $mode) (i32.const 10))
      (then (drop (call $first_token (global.get $scratch) (local.get $n)))))
    (drop (call $complete (global.get $scratch) (local.get $n)))
    (if (i32.eq (global.get $mode) (i32.const 5))
      (then (drop (call $complete (global.get $scratch) (local.get $n))))))

  (func (export "mlperf_v1_issue") (param $ptr i32) (param $count i32) (result i32)
    (local $i i32) (local $n i32) (local $rec i32) (local $out i32) (local $id i64) (local $first i64)
    (if (i32.eqz (local.get $count)) (then (return (i32.const 0))))
    (local.set $first (i64.load offset=8 (local.get $ptr)))
    (global.set $mode (i32.const 0))
    (if (i64.eq (i64.shr_u (local.get $first) (i64.const 8)) (i64.const 0xFA0000))
      (then (global.set $mode (i32.wrap_i64 (i64.and (local.get $first) (i64.const 0xff))))))
    (if (i32.eq (global.get $mode) (i32.const 1)) (then unreachable))
    (if (i32.eq (global.get $mode) (i32.const 2)) (then (loop $forever (br $forever))))
    (if (i32.eq (global.get $mode) (i32.const 3))
      (then
        (loop $grow (br_if $grow (i32.ne (memory.grow (i32.const 16)) (i32.const -1))))
        (call $stderr (i32.const 2100) (i32.const 27))
        (call $proc_exit (i32.const 2))))
    (if (i32.eq (global.get $mode) (i32.const 8)) (then (call $proc_exit (i32.const 3))))
    (if (i32.eq (global.get $mode) (i32.const 9))
      (then
        (call $stderr (i32.const 2140) (i32.const 12))
        (call $proc_exit (i32.const 2))))
    (if (i32.eq (global.get $mode) (i32.const 11))
      (then (return (call $complete (i32.const -16) (i32.const 1)))))
    (if (i32.eq (global.get $mode) (i32.const 12))
      (then
        (call $log (i32.const -4) (i32.const 2160) (i32.const 10))
        (call $log (i32.const 0) (i32.const 2176) (i32.const 9))
        (call $log (i32.const 4) (i32.const 2192) (i32.const 9))
        (call $log (i32.const 8) (i32.const 2208) (i32.const 10))))
    (if (i32.eqz (global.get $scratch))
      (then (global.set $scratch (call $alloc (i32.const 8192)))))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $i) (local.get $count)))
        (local.set $rec (i32.add (local.get $ptr) (i32.mul (local.get $i) (i32.const 24))))
        (local.set $id (i64.load (local.get $rec)))
        (if (i32.and (i32.eq (global.get $mode) (i32.const 6))
                     (i32.eq (local.get $i) (i32.sub (local.get $count) (i32.const 1))))
          (then (br $done)))
        (if (i32.eq (global.get $mode) (i32.const 4))
          (then (local.set $id (i64.add (local.get $id) (i64.const 1000000)))))
        (local.set $out (i32.add (global.get $scratch) (i32.mul (local.get $n) (i32.const 32))))
        (i64.store (local.get $out) (local.get $id))
        (if (i32.and (i32.eq (global.get $mode) (i32.const 7))
                     (i64.ne (i64.and (i64.load offset=8 (local.get $rec)) (i64.const 1)) (i64.const 0)))
          (then
            (i32.store offset=8 (local.get $out) (i32.const 13))
            (i32.store offset=12 (local.get $out) (i32.const 2048))
            (i32.store offset=16 (local.get $out) (i32.const 10)))
          (else
            (i32.store offset=8 (local.get $out) (i32.const 0))
            (i32.store offset=12 (local.get $out) (i32.add (local.get $rec) (i32.const 8)))
            (i32.store offset=16 (local.get $out) (i32.const 8))))
        (i32.store offset=20 (local.get $out) (i32.const 0))
        (i64.store offset=24 (local.get $out)
          (select (i64.const 5) (i64.const 0) (i32.eq (global.get $mode) (i32.const 10))))
        (local.set $n (i32.add (local.get $n) (i32.const 1)))
        (if (i32.eq (local.get $n) (i32.const 256))
          (then (call $deliver (local.get $n)) (local.set $n (i32.const 0))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))
    (call $deliver (local.get $n))
    (i32.const 0))
)
