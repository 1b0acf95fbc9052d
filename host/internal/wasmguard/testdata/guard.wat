;; guard.wat: a module exercising what the loop guard must renumber and
;; instrument: an imported function, calls, call_indirect through an element
;; segment, ref.func in a global, exports, a start function, nested loops and
;; the name section. Rebuild with: wat2wasm --debug-names guard.wat
(module
  (type $t (func (param i32) (result i32)))
  (import "env" "log" (func $log (param i32)))
  (table 2 funcref)
  (elem (i32.const 0) $count $spin)
  (elem declare func $indirect)
  (global $calls (mut i32) (i32.const 0))
  (global $ref funcref (ref.func $indirect))
  (func $count (export "count") (type $t) (local $i i32)
    (loop $l
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $l (i32.lt_u (local.get $i) (local.get 0))))
    (local.get $i))
  (func $spin (export "spin") (type $t)
    (loop $l (br $l))
    (i32.const 0))
  (func $indirect (export "indirect") (type $t)
    (call_indirect (type $t) (local.get 0) (i32.const 0)))
  (func $nested (export "nested") (type $t) (local $i i32) (local $s i32)
    (block $out
      (loop $outer
        (br_if $out (i32.ge_u (local.get $i) (local.get 0)))
        (local.set $s (i32.add (local.get $s) (call $count (i32.const 10))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $outer)))
    (local.get $s))
  (func $init
    (global.set $calls (i32.const 7))
    (call $log (i32.const 1)))
  (start $init)
  (func (export "calls") (result i32) (global.get $calls))
  (func (export "ref_is_null") (result i32) (ref.is_null (global.get $ref)))
)
