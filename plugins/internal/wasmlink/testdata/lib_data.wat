;; Breaks the rules: a data segment would overwrite the plugin's memory.
(module
  (import "env" "memory" (memory 1))
  (data (i32.const 16) "oops")
  (func (export "add") (param i32 i32) (result i32) (i32.const 0))
  (func (export "store") (param i32 i32))
)
