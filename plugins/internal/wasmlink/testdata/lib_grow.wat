;; Breaks the rules: grows the plugin's memory.
(module
  (import "env" "memory" (memory 1))
  (func (export "add") (param i32 i32) (result i32) (memory.grow (i32.const 1)))
  (func (export "store") (param i32 i32))
)
