;; nested.wat: loops for the nested form of the loop check: branches from a
;; loop's body to the loop, to blocks and loops outside it and to the
;; function (br, br_if, br_table), nested loops, a loop with a result, and a
;; loop with parameters (inline form) around one without (nested form).
;; Every function logs what it computes. Rebuild with:
;; wat2wasm --debug-names nested.wat
(module
  (type $acc (func (param i32) (result i32)))
  (import "env" "log" (func $log (param i32)))
  ;; Two nested loops left through a br_table to the inner loop, a block
  ;; around it, the outer loop and the function's outer block, and a br_if
  ;; to the function itself.
  (func $table (export "table") (param $n i32) (result i32)
    (local $i i32) (local $j i32) (local $acc i32)
    (block $exit
      (loop $outer
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br_if $exit (i32.gt_u (local.get $i) (local.get $n)))
        (local.set $j (i32.const 0))
        (block $skip
          (loop $inner
            (local.set $j (i32.add (local.get $j) (i32.const 1)))
            (local.set $acc (i32.add (local.get $acc) (i32.mul (local.get $i) (local.get $j))))
            (call $log (local.get $acc))
            (drop (br_if 4 (local.get $acc) (i32.gt_u (local.get $acc) (i32.const 5000))))
            (br_table $inner $skip $outer $skip $exit
              (select (i32.const 0) (i32.add (i32.const 1) (i32.rem_u (local.get $i) (i32.const 3)))
                (i32.lt_u (local.get $j) (local.get $i))))))
        (call $log (i32.const -1))
        (br $outer)))
    (local.get $acc))
  ;; A loop with a result, left by falling through, with an if inside that
  ;; branches back to the loop.
  (func $result (export "result") (param $n i32) (result i32) (local $i i32)
    (loop $l (result i32)
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (call $log (local.get $i))
      (if (i32.and (local.get $i) (i32.const 1))
        (then (br $l))
        (else (call $log (i32.const -2))))
      (br_if $l (i32.lt_u (local.get $i) (local.get $n)))
      (i32.mul (local.get $i) (i32.const 3))))
  ;; A loop with a parameter (inline form) around one without (nested
  ;; form), which branches to the outer one with a value when the sum is odd.
  (func $params (export "params") (param $n i32) (result i32) (local $k i32) (local $acc i32)
    (i32.const 0)
    (loop $p (type $acc)
      (local.set $acc)
      (local.set $k (i32.const 0))
      (loop $q
        (local.set $k (i32.add (local.get $k) (i32.const 1)))
        (call $log (local.get $k))
        (drop (br_if $p (i32.add (local.get $acc) (i32.const 101))
          (i32.and (i32.eq (local.get $k) (i32.const 2)) (local.get $acc))))
        (br_if $q (i32.lt_u (local.get $k) (i32.const 3))))
      (local.set $acc (i32.add (local.get $acc) (local.get $k)))
      (call $log (local.get $acc))
      (br_if $p (local.get $acc) (i32.lt_u (local.get $acc) (local.get $n)))))
)
