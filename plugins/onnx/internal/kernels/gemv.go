package kernels

// SmallM computes C = Epilogue(A · Bᵀ) or Epilogue(A · B) for a few rows
// of A, where packing for the register-tiled GEMM would waste most of a
// tile: a fully connected layer at small batch. A is row-major M×K (lda),
// C row-major M×N (ldc). With transposed B, B is row-major N×K (ldb) and
// each output is a dot product; otherwise B is row-major K×N and rows of C
// accumulate scaled rows of B. Bias is per column; Residual is ignored.
// Work is split over columns.
type SmallM struct {
	M, N, K    int
	A          []float32
	LDA        int
	B          []float32
	LDB        int
	TransposeB bool
	C          []float32
	LDC        int
	Ep         Epilogue
	// Dot, when set, replaces the portable dot product (a native one
	// from Gemm.Dot).
	Dot func(a, b []float32) float32
	// G, when set, is the GEMM whose kernels run the product: its whole
	// product kernel when it has one (the WASM build's SIMD kernel), else
	// its native dot product (when Dot is nil).
	G *Gemm

	cols int
}

// smallMCols is the column count of one task.
const smallMCols = 64

// Run computes the product on pool's threads.
func (s *SmallM) Run(pool *Pool) {
	if s.M == 0 || s.N == 0 {
		return
	}
	if s.G != nil && s.G.whole != nil {
		s.G.whole.smallM(s, &pool.scratch[0])
		return
	}
	if s.Dot == nil && s.G != nil {
		s.Dot = s.G.dot
	}
	s.cols = smallMCols
	pool.ForWork(ceilDiv(s.N, s.cols), s.M*s.N*s.K, (*smallMTask)(s))
}

// smallMTask is the Tasker of a SmallM run.
type smallMTask SmallM

// Run implements Tasker: columns [task*cols, ...) of every row.
func (t *smallMTask) Run(task int, _ *Scratch) {
	s := (*SmallM)(t)
	j0 := task * s.cols
	j1 := min(j0+s.cols, s.N)
	ep := &s.Ep
	for i := range s.M {
		a := s.A[i*s.LDA : i*s.LDA+s.K]
		c := s.C[i*s.LDC+j0 : i*s.LDC+j1]
		if s.TransposeB {
			d := s.Dot
			if d == nil {
				d = dot
			}
			for j := range c {
				c[j] = mergeOne(ep, d(a, s.B[(j0+j)*s.LDB:(j0+j)*s.LDB+s.K]), c[j], j0+j)
			}
			continue
		}
		// acc = a · B[:, j0:j1], accumulated row by row of B.
		var acc [smallMCols]float32
		ac := acc[:j1-j0]
		for k, av := range a {
			if av == 0 {
				continue
			}
			row := s.B[k*s.LDB+j0 : k*s.LDB+j1]
			for j, bv := range row {
				ac[j] += av * bv
			}
		}
		for j := range c {
			c[j] = mergeOne(ep, ac[j], c[j], j0+j)
		}
	}
}

// mergeOne applies the epilogue to one product value v for column j with
// previous output old.
func mergeOne(ep *Epilogue, v, old float32, j int) float32 {
	v *= ep.Alpha
	if ep.Beta != 0 {
		v += ep.Beta * old
	}
	if ep.Bias != nil {
		v += ep.Bias[j]
	}
	return ep.Act.one(v)
}

// dot is a 4-way unrolled dot product.
func dot(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return (s0 + s1) + (s2 + s3)
}
