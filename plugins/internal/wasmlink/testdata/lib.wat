;; A library: add(a, b) = a + b + 1 (through a block typed by index and an
;; internal function), store(p, v) writes v at p in the plugin's memory.
(module
  (import "env" "memory" (memory 1))
  (func $inc (param i32) (result i32) (i32.add (local.get 0) (i32.const 1)))
  (func (export "add") (param i32 i32) (result i32)
    (local.get 0) (local.get 1)
    (block (param i32 i32) (result i32) i32.add)
    call $inc)
  (func (export "store") (param i32 i32) (i32.store (local.get 0) (local.get 1)))
)
