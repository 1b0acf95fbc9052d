;; A plugin that imports two functions from "lib" between imports it
;; keeps, calls them directly and through a table, and exports the result.
(module
  (type $un (func (param i32) (result i32)))
  (type $bin (func (param i32 i32) (result i32)))
  (import "env" "log" (func $log (param i32)))
  (import "lib" "add" (func $add (type $bin)))
  (import "env" "base" (func $base (result i32)))
  (import "lib" "store" (func $store (param i32 i32)))
  (memory (export "memory") 1)
  (table 2 funcref)
  (elem (i32.const 0) $f $g)
  (func $f (type $un) (call $add (local.get 0) (call $base)))
  (func $g (type $un) (i32.mul (local.get 0) (i32.const 3)))
  ;; run(x) = f(x) + g(x) = (x + base + 1) + 3x, after the library stored
  ;; x at address 64 and the host logged it.
  (func (export "run") (param $x i32) (result i32)
    (call $store (i32.const 64) (local.get $x))
    (call $log (i32.load (i32.const 64)))
    (i32.add
      (call_indirect (type $un) (local.get $x) (i32.const 0))
      (call_indirect (type $un) (local.get $x) (i32.const 1))))
)
