package kernels

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

func randSlice(r *rand.Rand, n int) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = r.Float32()*2 - 1
	}
	return s
}

// refGemm is the textbook triple loop in float64.
func refGemm(m, n, k int, a, b Mat, c Mat, ep Epilogue) {
	for i := range m {
		for j := range n {
			var sum float64
			for p := range k {
				sum += float64(a.Data[i*a.RS+p*a.CS]) * float64(b.Data[p*b.RS+j*b.CS])
			}
			v := float64(ep.Alpha)*sum + float64(ep.Beta)*float64(c.Data[i*c.RS+j*c.CS])
			if ep.Bias != nil {
				if ep.BiasPerRow {
					v += float64(ep.Bias[i])
				} else {
					v += float64(ep.Bias[j])
				}
			}
			if ep.Residual.Data != nil {
				v += float64(ep.Residual.Data[i*ep.Residual.RS+j*ep.Residual.CS])
			}
			c.Data[i*c.RS+j*c.CS] = ep.Act.one(float32(v))
		}
	}
}

func requireClose(t testing.TB, want, got []float32, tol float64) {
	t.Helper()
	require.Len(t, got, len(want))
	for i := range want {
		d := float64(want[i] - got[i])
		if d < -tol || d > tol {
			require.InDeltaf(t, want[i], got[i], tol, "element %d", i)
		}
	}
}

func gemms() map[string]*Gemm {
	out := map[string]*Gemm{"go": NewGemm(), "go4x16": newGemm(go4x16()), "go4x8": newGemm(go4x8())}
	for _, k := range nativeKernels() {
		out[k.name] = nativeGemm(k)
	}
	return out
}

func TestGemm(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name            string
		m, n, k         int
		transA, transB  bool
		ep              Epilogue
		threads         int
		withRes, perCol bool
	}{
		{name: "1x1x1", m: 1, n: 1, k: 1, ep: Epilogue{Alpha: 1}},
		{name: "edges", m: 7, n: 19, k: 5, ep: Epilogue{Alpha: 1}},
		{name: "deep K spans blocks", m: 9, n: 33, k: 600, ep: Epilogue{Alpha: 1}},
		{name: "transposed", m: 13, n: 21, k: 17, transA: true, transB: true, ep: Epilogue{Alpha: 1}},
		{name: "alpha beta", m: 5, n: 40, k: 8, ep: Epilogue{Alpha: 0.5, Beta: 2}},
		{name: "bias row relu", m: 20, n: 50, k: 30, ep: Epilogue{Alpha: 1, BiasPerRow: true, Act: Relu()}},
		{name: "bias col clip", m: 20, n: 50, k: 30, perCol: true, ep: Epilogue{Alpha: 1, Act: Clip(-0.1, 0.2)}},
		{name: "residual threads", m: 70, n: 300, k: 270, withRes: true, threads: 3, ep: Epilogue{Alpha: 1, BiasPerRow: true, Act: Relu()}},
		{name: "bias row clip residual", m: 17, n: 70, k: 9, withRes: true, ep: Epilogue{Alpha: 1, BiasPerRow: true, Act: Clip(-0.3, 0.4)}},
		// One column block, rows split: B is packed once and shared.
		{name: "shared B deep K", m: 300, n: 20, k: 700, threads: 3, withRes: true, ep: Epilogue{Alpha: 1, BiasPerRow: true, Act: Relu()}},
		{name: "tall threads", m: 500, n: 9, k: 40, threads: 4, ep: Epilogue{Alpha: 1}},
		{name: "K zero", m: 3, n: 4, k: 0, ep: Epilogue{Alpha: 1, Beta: 1, BiasPerRow: true}},
	}
	for kname, g := range gemms() {
		for _, tt := range tests {
			t.Run(kname+"/"+tt.name, func(t *testing.T) {
				t.Parallel()
				r := rand.New(rand.NewPCG(uint64(tt.m), uint64(tt.n*1000+tt.k)))
				a := RowMajor(randSlice(r, tt.m*tt.k), tt.k)
				if tt.transA {
					a = Mat{Data: randSlice(r, tt.m*tt.k), RS: 1, CS: tt.m}
				}
				b := RowMajor(randSlice(r, tt.k*tt.n), tt.n)
				if tt.transB {
					b = Mat{Data: randSlice(r, tt.k*tt.n), RS: 1, CS: tt.k}
				}
				ep := tt.ep
				if ep.BiasPerRow {
					ep.Bias = randSlice(r, tt.m)
				} else if tt.perCol {
					ep.Bias = randSlice(r, tt.n)
				}
				if tt.withRes {
					ep.Residual = RowMajor(randSlice(r, tt.m*tt.n), tt.n)
				}
				c0 := randSlice(r, tt.m*tt.n)
				want := append([]float32(nil), c0...)
				refGemm(tt.m, tt.n, tt.k, a, b, RowMajor(want, tt.n), ep)

				pool := NewPool(max(tt.threads, 1))
				defer pool.Close()
				pa := g.PackA(nil, a, tt.m, tt.k)
				got := append([]float32(nil), c0...)
				call := GemmCall{M: tt.m, N: tt.n, K: tt.k, Batch: 1, A: &pa, B: &MatSource{M: b}, C: RowMajor(got, tt.n), Ep: ep}
				g.Run(pool, &call)
				requireClose(t, want, got, 1e-4*float64(max(tt.k, 1)))
			})
		}
	}
}

// Not parallel: testing.AllocsPerRun refuses to run in parallel tests.
func TestGemmBatchedNoAllocs(t *testing.T) {
	g := NewGemm()
	r := rand.New(rand.NewPCG(1, 2))
	const m, n, k, batch = 8, 24, 12, 3
	a := RowMajor(randSlice(r, m*k), k)
	bs := randSlice(r, batch*k*n)
	pa := g.PackA(nil, a, m, k)
	got := make([]float32, batch*m*n)
	pool := NewPool(2)
	defer pool.Close()
	call := GemmCall{M: m, N: n, K: k, Batch: batch, A: &pa, B: &MatSource{M: RowMajor(bs, n), BatchStride: k * n},
		C: RowMajor(got, n), CBatchStride: m * n, Ep: Epilogue{Alpha: 1}}
	g.Run(pool, &call)
	for bi := range batch {
		want := make([]float32, m*n)
		refGemm(m, n, k, a, RowMajor(bs[bi*k*n:], n), RowMajor(want, n), Epilogue{Alpha: 1})
		requireClose(t, want, got[bi*m*n:(bi+1)*m*n], 1e-4)
	}
	allocs := testing.AllocsPerRun(20, func() { g.Run(pool, &call) })
	require.Zero(t, allocs)
}

func BenchmarkGemm(b *testing.B) {
	sizes := []struct{ m, n, k int }{{64, 3136, 576}, {256, 256, 256}, {1024, 49, 4608}, {1000, 1, 2048}}
	for kname, g := range gemms() {
		for _, threads := range []int{1, 0} {
			for _, sz := range sizes {
				b.Run(fmt.Sprintf("%s/threads=%d/%dx%dx%d", kname, threads, sz.m, sz.n, sz.k), func(b *testing.B) {
					benchGemm(b, g, threads, sz.m, sz.n, sz.k)
				})
			}
		}
	}
}

func TestSmallM(t *testing.T) {
	t.Parallel()
	for kname, g := range gemms() {
		for _, trans := range []bool{true, false} {
			for _, k := range []int{1, 31, 32, 100, 1568} {
				t.Run(fmt.Sprintf("%s/trans=%v/k=%d", kname, trans, k), func(t *testing.T) {
					t.Parallel()
					const m, n = 3, 70
					r := rand.New(rand.NewPCG(uint64(k), 1))
					a := randSlice(r, m*k)
					b := randSlice(r, n*k)
					bm := RowMajor(b, n)
					ldb := n
					if trans {
						bm, ldb = Mat{Data: b, RS: 1, CS: k}, k
					}
					ep := Epilogue{Alpha: 1, Bias: randSlice(r, n), Act: Relu()}
					want := make([]float32, m*n)
					refGemm(m, n, k, RowMajor(a, k), bm, RowMajor(want, n), ep)
					got := make([]float32, m*n)
					pool := NewPool(2)
					defer pool.Close()
					s := SmallM{M: m, N: n, K: k, A: a, LDA: k, B: b, LDB: ldb, TransposeB: trans, C: got, LDC: n, Ep: ep, G: g}
					s.Run(pool)
					requireClose(t, want, got, 1e-4*float64(k))
				})
			}
		}
	}
}
