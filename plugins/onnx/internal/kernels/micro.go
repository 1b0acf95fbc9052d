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

// go4x16 is a portable micro-kernel whose accumulators live in a local
// array: natively it beats a register tile (measured on amd64: 6.3 vs
// 3.9 GFLOP/s; the compiler cannot keep 16+ floats in registers).
func go4x16() microKernel { return microKernel{name: "go4x16", mr: 4, nr: 16, fn: kernel4x16} }

// go4x8 is a portable micro-kernel with its 32 accumulators in scalar
// locals. Compiled to WASM, locals become wasm locals that wazero keeps in
// registers or stack slots while array elements are memory traffic: in
// wazero it runs 2.9 GFLOP/s against go4x16's 1.6.
func go4x8() microKernel { return microKernel{name: "go4x8", mr: 4, nr: 8, fn: kernel4x8} }

func kernel4x8(kc int, a, b, tile []float32) {
	var c00, c01, c02, c03, c04, c05, c06, c07 float32
	var c10, c11, c12, c13, c14, c15, c16, c17 float32
	var c20, c21, c22, c23, c24, c25, c26, c27 float32
	var c30, c31, c32, c33, c34, c35, c36, c37 float32
	a = a[:kc*4]
	b = b[:kc*8]
	for p := range kc {
		aa := (*[4]float32)(a[p*4:])
		bb := (*[8]float32)(b[p*8:])
		a0, a1, a2, a3 := aa[0], aa[1], aa[2], aa[3]
		b0, b1, b2, b3, b4, b5, b6, b7 := bb[0], bb[1], bb[2], bb[3], bb[4], bb[5], bb[6], bb[7]
		c00, c01, c02, c03 = c00+a0*b0, c01+a0*b1, c02+a0*b2, c03+a0*b3
		c04, c05, c06, c07 = c04+a0*b4, c05+a0*b5, c06+a0*b6, c07+a0*b7
		c10, c11, c12, c13 = c10+a1*b0, c11+a1*b1, c12+a1*b2, c13+a1*b3
		c14, c15, c16, c17 = c14+a1*b4, c15+a1*b5, c16+a1*b6, c17+a1*b7
		c20, c21, c22, c23 = c20+a2*b0, c21+a2*b1, c22+a2*b2, c23+a2*b3
		c24, c25, c26, c27 = c24+a2*b4, c25+a2*b5, c26+a2*b6, c27+a2*b7
		c30, c31, c32, c33 = c30+a3*b0, c31+a3*b1, c32+a3*b2, c33+a3*b3
		c34, c35, c36, c37 = c34+a3*b4, c35+a3*b5, c36+a3*b6, c37+a3*b7
	}
	t := (*[32]float32)(tile[:32])
	t[0], t[1], t[2], t[3], t[4], t[5], t[6], t[7] = c00, c01, c02, c03, c04, c05, c06, c07
	t[8], t[9], t[10], t[11], t[12], t[13], t[14], t[15] = c10, c11, c12, c13, c14, c15, c16, c17
	t[16], t[17], t[18], t[19], t[20], t[21], t[22], t[23] = c20, c21, c22, c23, c24, c25, c26, c27
	t[24], t[25], t[26], t[27], t[28], t[29], t[30], t[31] = c30, c31, c32, c33, c34, c35, c36, c37
}

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
