;; Exports add with another signature than the plugin imports.
(module
  (import "env" "memory" (memory 1))
  (func (export "add") (param i64 i32) (result i32) (i32.const 0))
  (func (export "store") (param i32 i32))
)
