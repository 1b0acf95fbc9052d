package kernels

import (
	"math/rand/v2"
	"runtime"
	"testing"
)

func benchGemm(b *testing.B, g *Gemm, threads, m, n, k int) {
	if threads == 0 {
		threads = runtime.NumCPU()
	}
	r := rand.New(rand.NewPCG(3, 4))
	a := RowMajor(randSlice(r, m*k), k)
	bm := RowMajor(randSlice(r, k*n), n)
	c := make([]float32, m*n)
	pa := g.PackA(nil, a, m, k)
	pool := NewPool(threads)
	defer pool.Close()
	call := GemmCall{M: m, N: n, K: k, Batch: 1, A: &pa, B: &MatSource{M: bm}, C: RowMajor(c, n), Ep: Epilogue{Alpha: 1}}
	b.ReportAllocs()
	c0 := cpuTime()
	for b.Loop() {
		g.Run(pool, &call)
	}
	flop := 2 * float64(m) * float64(n) * float64(k) * float64(b.N)
	b.ReportMetric(flop/b.Elapsed().Seconds()/1e9, "GFLOP/s")
	if c := cpuTime() - c0; c > 0 {
		// On a loaded machine the process's CPU time is the steadier
		// measure (one thread: the loop runs on the benchmark's goroutine).
		b.ReportMetric(flop/c.Seconds()/1e9, "cpu-GFLOP/s")
	}
}
