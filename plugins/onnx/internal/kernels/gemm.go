package kernels

// Gemm is a blocked, packed single-precision matrix multiply bound to one
// micro-kernel. It holds no per-call state and is safe for concurrent use.
type Gemm struct {
	kern microKernel
	// kc is the depth of one packed block; mc and nc bound the rows and
	// columns one task covers (nc also sizes each worker's B buffer).
	kc, mc, nc int
	// dwRow is the vectorized stride-1 3×3 depthwise row routine that
	// goes with a native micro-kernel, nil for the portable build.
	dwRow func(n int, r0, r1, r2, out, w []float32, ep *tileEpilogue)
	// dot is the native dot product, nil for the portable build.
	dot func(a, b []float32) float32
	// whole holds kernels that run a whole call themselves (the WASM
	// build's SIMD kernels, see simd_wasm.go); nil for the others.
	whole *wholeKernels
	// winograd chooses when convolutions take the whole kernels' Winograd
	// path (WithWinograd).
	winograd WinogradMode //nolint:unused // read by the WASM build's SIMD kernels (winograd_wasm.go)
}

// wholeKernels run whole calls on one thread with the calling worker's
// scratch, instead of the blocking loops of this package.
type wholeKernels struct {
	gemm      func(c *GemmCall, s *Scratch)
	depthwise func(c *Conv, n int, x, y, res []float32, s *Scratch)
	smallM    func(m *SmallM, s *Scratch)
	// packPointwise packs the weights of a pointwise convolution (M×K,
	// row-major) in the layout its GEMM runs fastest, or reports false
	// to keep PackA's.
	packPointwise func(w []float32, m, k int) (PackedA, bool)
	// maxPool runs a whole max pooling of planes planes, or reports false
	// for a shape it does not take (dilated windows).
	maxPool func(t *PoolTask, planes int, s *Scratch) bool
	// planWinograd transforms and packs the weights of a convolution
	// that runs as Winograd minimal filtering under mode, or reports
	// false to keep the GEMM; winograd runs such a convolution.
	planWinograd func(s *ConvShape, w []float32, mode WinogradMode) (*winogradPlan, bool)
	winograd     func(c *Conv, n int, x, y, res []float32, s *Scratch)
}

// Dot returns the GEMM's dot product routine for SmallM.Dot (nil means
// the portable one).
func (g *Gemm) Dot() func(a, b []float32) float32 { return g.dot }

// NewGemm returns a GEMM with the portable pure-Go micro-kernel.
func NewGemm() *Gemm { return newGemm(goKernel()) }

func newGemm(k microKernel) *Gemm { return &Gemm{kern: k, kc: 512, mc: 192, nc: 256} }

// KernelName names the micro-kernel, e.g. "go4x16".
func (g *Gemm) KernelName() string { return g.kern.name }

// GemmCall is one GEMM problem,
//
//	C[b] = Epilogue(A · B[b])   for b in [0, Batch)
//
// with A packed (M×K), B supplied block by block by a BSource (K×N per
// batch item) and C a strided view whose batch item b starts CBatchStride
// elements after item b-1 (Epilogue.Residual likewise). Keep a GemmCall
// per planned node and reuse it: running it allocates nothing.
type GemmCall struct {
	M, N, K int
	Batch   int
	// A is the packed left operand; a grouped problem instead sets
	// AGroups, and batch item b uses AGroups[b%len(AGroups)] and, for a
	// per-row bias, Bias[(b%len(AGroups))*M:].
	A            *PackedA
	AGroups      []PackedA
	B            BSource
	C            Mat
	CBatchStride int
	Ep           Epilogue

	g                   *Gemm
	mBlocks, nBlocks    int
	mBlock, nBlock      int
	tasksPerBatch, jobs int
	// shared holds B packed once for all tasks (one batch item whose
	// columns fit one block, rows split over threads), K block by K block;
	// nil when every task packs its own.
	shared []float32
}

// gemmPackTask packs K block `task` of B into GemmCall.shared.
type gemmPackTask GemmCall

// Run implements Tasker.
func (p *gemmPackTask) Run(task int, _ *Scratch) {
	c := (*GemmCall)(p)
	kc, nr := c.g.kc, c.g.kern.nr
	np := ceilDiv(c.N, nr) * nr
	k0 := task * kc
	c.B.PackB(c.shared[task*kc*np:], 0, k0, min(kc, c.K-k0), 0, c.N, nr)
}

// Run computes the call on pool's threads.
func (g *Gemm) Run(pool *Pool, c *GemmCall) {
	if c.M == 0 || c.N == 0 || c.Batch == 0 {
		return
	}
	c.g = g
	if g.whole != nil {
		g.whole.gemm(c, &pool.scratch[0])
		return
	}
	threads := pool.Threads()
	work := c.Batch * c.M * c.N * max(c.K, 1)
	if work < minParallelWork {
		threads = 1
	}
	c.split(threads)
	c.shared = nil
	if threads > 1 && c.Batch == 1 && c.nBlocks == 1 && c.mBlocks > 1 && c.K > 0 {
		kb := ceilDiv(c.K, g.kc)
		c.shared = buf(&pool.shared, kb*g.kc*ceilDiv(c.N, g.kern.nr)*g.kern.nr)
		pool.For(kb, (*gemmPackTask)(c))
	}
	pool.ForWork(c.jobs, work, c)
}

// split chooses the task grid: blocks of at most mc rows and nc columns,
// shrunk (in whole panels) until there are a few tasks per thread.
func (c *GemmCall) split(threads int) {
	mr, nr := c.g.kern.mr, c.g.kern.nr
	mPanels, nPanels := ceilDiv(c.M, mr), ceilDiv(c.N, nr)
	mb := min(mPanels, c.g.mc/mr)
	nb := min(nPanels, c.g.nc/nr)
	want := 2 * threads
	if threads == 1 {
		want = 1
	}
	for c.Batch*ceilDiv(mPanels, mb)*ceilDiv(nPanels, nb) < want && (mb > 1 || nb > 1) {
		// Halve the dimension with more panels per block; prefer
		// splitting columns, which does not repeat B packing.
		if nb >= mb || mb == 1 {
			nb = ceilDiv(nb, 2)
		} else {
			mb = ceilDiv(mb, 2)
		}
	}
	c.mBlock, c.nBlock = mb*mr, nb*nr
	c.mBlocks, c.nBlocks = ceilDiv(mPanels, mb), ceilDiv(nPanels, nb)
	c.tasksPerBatch = c.mBlocks * c.nBlocks
	c.jobs = c.Batch * c.tasksPerBatch
}

// Run implements Tasker: one block of rows × columns of one batch item.
func (c *GemmCall) Run(task int, s *Scratch) {
	g := c.g
	mr, nr := g.kern.mr, g.kern.nr
	b := task / c.tasksPerBatch
	t := task % c.tasksPerBatch
	i0 := (t / c.nBlocks) * c.mBlock
	j0 := (t % c.nBlocks) * c.nBlock
	mm := min(c.mBlock, c.M-i0)
	nn := min(c.nBlock, c.N-j0)
	a := c.A
	if c.AGroups != nil {
		a = &c.AGroups[b%len(c.AGroups)]
	}
	tile := buf(&s.tile, mr*nr)
	if c.K == 0 {
		clear(tile)
		for jr := 0; jr < nn; jr += nr {
			for ir := 0; ir < mm; ir += mr {
				c.store(tile, b, i0+ir, j0+jr, min(mr, mm-ir), min(nr, nn-jr), true, true)
			}
		}
		return
	}
	var packB []float32
	if c.shared == nil {
		packB = buf(&s.packB, g.kc*ceilDiv(nn, nr)*nr)
	}
	// Full tiles go straight to C when the kernel can and the epilogue
	// allows it (plain C = A·B + bias, residual, activation).
	direct := g.kern.direct != nil && c.C.CS == 1 && c.Ep.Alpha == 1 && c.Ep.Beta == 0
	// The kernel applies the epilogue itself when it can: per-row bias
	// and a residual with contiguous rows.
	fused := direct && g.kern.fusedEpilogue && (c.Ep.Bias == nil || c.Ep.BiasPerRow) &&
		(c.Ep.Residual.Data == nil || c.Ep.Residual.CS == 1)
	for k0 := 0; k0 < c.K; k0 += g.kc {
		kc := min(g.kc, c.K-k0)
		if c.shared != nil {
			np := ceilDiv(nn, nr) * nr
			packB = c.shared[(k0/g.kc)*g.kc*np:]
		} else {
			c.B.PackB(packB, b, k0, kc, j0, nn, nr)
		}
		first, last := k0 == 0, k0+kc == c.K
		for jr := 0; jr < nn; jr += nr {
			bp := packB[(jr/nr)*kc*nr : (jr/nr+1)*kc*nr]
			for ir := 0; ir < mm; ir += mr {
				ap := a.panel((i0+ir)/mr, k0, kc)
				if direct && ir+mr <= mm && jr+nr <= nn {
					base := b*c.CBatchStride + (i0+ir)*c.C.RS + j0 + jr
					var ep *tileEpilogue
					if last && fused {
						ep = c.tileEpilogue(&s.ep, b, i0+ir, j0+jr)
					}
					g.kern.direct(kc, ap, bp, c.C.Data[base:], c.C.RS, !first, ep)
					if last && !fused {
						c.finish(b, i0+ir, j0+jr, mr, nr)
					}
					continue
				}
				g.kern.fn(kc, ap, bp, tile)
				c.store(tile, b, i0+ir, j0+jr, min(mr, mm-ir), min(nr, nn-jr), first, last)
			}
		}
	}
}

// store merges one mm×nn tile into C at (i0, j0) of batch item b: the
// first K block applies Alpha and Beta, later ones accumulate, and the
// last applies bias, residual and activation.
func (c *GemmCall) store(tile []float32, b, i0, j0, mm, nn int, first, last bool) {
	if c.C.CS != 1 {
		c.storeStrided(tile, b, i0, j0, mm, nn, first, last)
		return
	}
	nr := c.g.kern.nr
	ep := &c.Ep
	cm := c.C
	off := b * c.CBatchStride
	bias := c.bias(b)
	for r := range mm {
		i := i0 + r
		src := tile[r*nr : r*nr+nn]
		base := off + i*cm.RS + j0
		dst := cm.Data[base : base+nn]
		switch {
		case first && ep.Beta == 0 && ep.Alpha == 1:
			copy(dst, src)
		case first && ep.Beta == 0:
			for j, v := range src {
				dst[j] = ep.Alpha * v
			}
		case first:
			for j, v := range src {
				dst[j] = ep.Alpha*v + ep.Beta*dst[j]
			}
		case ep.Alpha == 1:
			for j, v := range src {
				dst[j] += v
			}
		default:
			for j, v := range src {
				dst[j] += ep.Alpha * v
			}
		}
		if last {
			c.finishRow(dst, bias, off, i, j0)
		}
	}
}

// tileEpilogue fills e for the full tile at (i0, j0) of batch item b, or
// returns nil when there is nothing to apply.
func (c *GemmCall) tileEpilogue(e *tileEpilogue, b, i0, j0 int) *tileEpilogue {
	ep := &c.Ep
	*e = tileEpilogue{}
	if bias := c.bias(b); bias != nil {
		e.biasS = bias[i0:]
		e.bias = &e.biasS[0]
	}
	if res := ep.Residual; res.Data != nil {
		e.resS = res.Data[b*c.CBatchStride+i0*res.RS+j0:]
		e.res, e.ldr = &e.resS[0], res.RS
	}
	switch ep.Act.Kind {
	case ActRelu:
		e.act = 1
	case ActClip:
		e.act, e.lo, e.hi = 2, ep.Act.Min, ep.Act.Max
	}
	if e.bias == nil && e.res == nil && e.act == 0 {
		return nil
	}
	return e
}

// finish applies the last-pass epilogue (bias, residual, activation) to
// an mm×nn block of C that already holds A·B.
func (c *GemmCall) finish(b, i0, j0, mm, nn int) {
	ep := &c.Ep
	bias := c.bias(b)
	if bias == nil && ep.Residual.Data == nil && ep.Act.Kind == ActNone {
		return
	}
	off := b * c.CBatchStride
	for i := i0; i < i0+mm; i++ {
		base := off + i*c.C.RS + j0
		c.finishRow(c.C.Data[base:base+nn], bias, off, i, j0)
	}
}

// finishRow applies bias, residual and activation to dst, the part of
// row i of C from column j0 in the batch item at offset off.
func (c *GemmCall) finishRow(dst, bias []float32, off, i, j0 int) {
	ep := &c.Ep
	if bias != nil {
		if ep.BiasPerRow {
			bv := bias[i]
			for j := range dst {
				dst[j] += bv
			}
		} else {
			for j, bv := range bias[j0 : j0+len(dst)] {
				dst[j] += bv
			}
		}
	}
	if res := ep.Residual; res.Data != nil {
		rbase := off + i*res.RS + j0*res.CS
		for j := range dst {
			dst[j] += res.Data[rbase+j*res.CS]
		}
	}
	ep.Act.Apply(dst)
}

// bias returns the bias of batch item b (groups offset per-row biases).
func (c *GemmCall) bias(b int) []float32 {
	bias := c.Ep.Bias
	if bias != nil && c.Ep.BiasPerRow && c.AGroups != nil {
		bias = bias[(b%len(c.AGroups))*c.M:]
	}
	return bias
}

// storeStrided is store for a C whose columns are not contiguous.
func (c *GemmCall) storeStrided(tile []float32, b, i0, j0, mm, nn int, first, last bool) {
	nr := c.g.kern.nr
	ep := &c.Ep
	cm := c.C
	off := b * c.CBatchStride
	bias := c.bias(b)
	res := ep.Residual
	for r := range mm {
		i := i0 + r
		trow := tile[r*nr : r*nr+nn]
		base := off + i*cm.RS + j0*cm.CS
		rbase := off + i*res.RS + j0*res.CS
		for col, v := range trow {
			idx := base + col*cm.CS
			v *= ep.Alpha
			switch {
			case !first:
				v += cm.Data[idx]
			case ep.Beta != 0:
				v += ep.Beta * cm.Data[idx]
			}
			if last {
				if bias != nil {
					if ep.BiasPerRow {
						v += bias[i]
					} else {
						v += bias[j0+col]
					}
				}
				if res.Data != nil {
					v += res.Data[rbase+col*res.CS]
				}
				v = ep.Act.one(v)
			}
			cm.Data[idx] = v
		}
	}
}

// BestGemm returns the GEMM with the fastest micro-kernel this CPU runs:
// a native one when available, else the portable one.
func BestGemm() *Gemm {
	if ks := nativeKernels(); len(ks) > 0 {
		return nativeGemm(ks[0])
	}
	return NewGemm()
}

// nativeGemm is the GEMM of a native micro-kernel with the platform's
// other native kernels.
func nativeGemm(k microKernel) *Gemm {
	g := newGemm(k)
	g.dwRow = depthwiseRow()
	g.dot = dotVec()
	g.whole = platformWholeKernels()
	return g
}
