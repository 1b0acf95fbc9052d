package kernels

// microKernel computes one register tile: tile = A·B where A is an
// mr-row panel and B an nr-column panel, both packed k-major (mr or nr
// consecutive values per k) over kc steps. tile is row-major mr×nr and is
// overwritten.
type microKernel struct {
	name   string
	mr, nr int
	fn     func(kc int, a, b, tile []float32)
	// direct, when set, writes a full mr×nr tile straight into a
	// row-major C (rows ldc apart): C = A·B, or C += A·B with acc. kc is
	// at least 1. With fusedEpilogue it also applies ep when not nil.
	direct        func(kc int, a, b, c []float32, ldc int, acc bool, ep *tileEpilogue)
	fusedEpilogue bool
}

// tileEpilogue is the last-pass epilogue of one full tile in the layout
// the assembly kernels read (offsets 0, 8, 16, 24, 32, 36): per-row bias
// (nil for none, else the tile's first row's), residual (nil, else the
// tile's first element) with its row stride, activation kind (ActKind)
// and clip bounds. Relu is kind 1 with lo 0.
type tileEpilogue struct {
	bias   *float32
	res    *float32
	ldr    int
	act    int
	lo, hi float32
	// biasS and resS keep the slices the pointers come from, for check.
	biasS, resS []float32
}

// check panics unless the epilogue's slices cover an mr×nr tile; it
// guards the assembly against out-of-range reads.
func (e *tileEpilogue) check(mr, nr int) {
	if e.bias != nil {
		_ = e.biasS[mr-1]
	}
	if e.res != nil {
		_ = e.resS[(mr-1)*e.ldr+nr-1]
	}
}

// goKernel is the portable micro-kernel: 4 rows × 16 columns. Its
// accumulators live in a local array (the Go compiler keeps at most a few
// floats in registers, and measured on amd64 this memory-accumulator form
// beats a 16-scalar register tile by ~40%).
func goKernel() microKernel { return microKernel{name: "go4x16", mr: 4, nr: 16, fn: kernel4x16} }

func kernel4x16(kc int, a, b, tile []float32) {
	var acc [4][16]float32
	a = a[:kc*4]
	b = b[:kc*16]
	for p := range kc {
		bb := (*[16]float32)(b[p*16:])
		aa := (*[4]float32)(a[p*4:])
		for r := range 4 {
			s := aa[r]
			row := &acc[r]
			row[0] += s * bb[0]
			row[1] += s * bb[1]
			row[2] += s * bb[2]
			row[3] += s * bb[3]
			row[4] += s * bb[4]
			row[5] += s * bb[5]
			row[6] += s * bb[6]
			row[7] += s * bb[7]
			row[8] += s * bb[8]
			row[9] += s * bb[9]
			row[10] += s * bb[10]
			row[11] += s * bb[11]
			row[12] += s * bb[12]
			row[13] += s * bb[13]
			row[14] += s * bb[14]
			row[15] += s * bb[15]
		}
	}
	t := (*[64]float32)(tile[:64])
	for r := range 4 {
		copy(t[r*16:r*16+16], acc[r][:])
	}
}
