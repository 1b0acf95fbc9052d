;; matmul.wat: a naive 64x64 f32 matrix product, the loop-heavy kernel of
;; BenchmarkGuard. Rebuild with: wat2wasm matmul.wat
(module
  (memory (export "memory") 1)
  (func (export "matmul") (param $reps i32)
    (local $r i32) (local $i i32) (local $j i32) (local $k i32) (local $s f32)
    (loop $rep
      (local.set $i (i32.const 0))
      (loop $li
        (local.set $j (i32.const 0))
        (loop $lj
          (local.set $s (f32.const 0))
          (local.set $k (i32.const 0))
          (loop $lk
            (local.set $s (f32.add (local.get $s)
              (f32.mul
                (f32.load (i32.shl (i32.add (i32.shl (local.get $i) (i32.const 6)) (local.get $k)) (i32.const 2)))
                (f32.load offset=16384 (i32.shl (i32.add (i32.shl (local.get $k) (i32.const 6)) (local.get $j)) (i32.const 2))))))
            (br_if $lk (i32.lt_u (local.tee $k (i32.add (local.get $k) (i32.const 1))) (i32.const 64))))
          (f32.store offset=32768 (i32.shl (i32.add (i32.shl (local.get $i) (i32.const 6)) (local.get $j)) (i32.const 2)) (local.get $s))
          (br_if $lj (i32.lt_u (local.tee $j (i32.add (local.get $j) (i32.const 1))) (i32.const 64))))
        (br_if $li (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (i32.const 64))))
      (br_if $rep (i32.lt_u (local.tee $r (i32.add (local.get $r) (i32.const 1))) (local.get $reps)))))
)
