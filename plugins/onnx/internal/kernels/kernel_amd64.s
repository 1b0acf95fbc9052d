//go:build !purego

#include "textflag.h"

// func kernel6x16AVX2C(kc int, a, b, c *float32, ldc int, acc int)
//
// C = A·B (acc 0) or C += A·B for a packed 6-row panel a (6 floats per
// k) and a packed 16-column panel b (16 floats per k), kc steps; C's rows
// are ldc floats apart. Accumulators: Y0..Y11 (row r in Y(2r), Y(2r+1));
// B in Y12, Y13; broadcasts of A alternate between Y14 and Y15.
TEXT ·kernel6x16AVX2C(SB), NOSPLIT, $0-48
	MOVQ kc+0(FP), CX
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DI
	MOVQ c+24(FP), DX
	MOVQ ldc+32(FP), R8
	SHLQ $2, R8
	MOVQ acc+40(FP), R9
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	VXORPS Y8, Y8, Y8
	VXORPS Y9, Y9, Y9
	VXORPS Y10, Y10, Y10
	VXORPS Y11, Y11, Y11
	TESTQ CX, CX
	JEQ storec

loopc:
	VMOVUPS (DI), Y12
	VMOVUPS 32(DI), Y13
	VBROADCASTSS (SI), Y14
	VFMADD231PS Y12, Y14, Y0
	VFMADD231PS Y13, Y14, Y1
	VBROADCASTSS 4(SI), Y15
	VFMADD231PS Y12, Y15, Y2
	VFMADD231PS Y13, Y15, Y3
	VBROADCASTSS 8(SI), Y14
	VFMADD231PS Y12, Y14, Y4
	VFMADD231PS Y13, Y14, Y5
	VBROADCASTSS 12(SI), Y15
	VFMADD231PS Y12, Y15, Y6
	VFMADD231PS Y13, Y15, Y7
	VBROADCASTSS 16(SI), Y14
	VFMADD231PS Y12, Y14, Y8
	VFMADD231PS Y13, Y14, Y9
	VBROADCASTSS 20(SI), Y15
	VFMADD231PS Y12, Y15, Y10
	VFMADD231PS Y13, Y15, Y11
	ADDQ $24, SI
	ADDQ $64, DI
	DECQ CX
	JNE loopc

storec:
	TESTQ R9, R9
	JEQ overwrite
	VADDPS (DX), Y0, Y0
	VADDPS 32(DX), Y1, Y1
	ADDQ R8, DX
	VADDPS (DX), Y2, Y2
	VADDPS 32(DX), Y3, Y3
	ADDQ R8, DX
	VADDPS (DX), Y4, Y4
	VADDPS 32(DX), Y5, Y5
	ADDQ R8, DX
	VADDPS (DX), Y6, Y6
	VADDPS 32(DX), Y7, Y7
	ADDQ R8, DX
	VADDPS (DX), Y8, Y8
	VADDPS 32(DX), Y9, Y9
	ADDQ R8, DX
	VADDPS (DX), Y10, Y10
	VADDPS 32(DX), Y11, Y11
	MOVQ c+24(FP), DX

overwrite:
	VMOVUPS Y0, (DX)
	VMOVUPS Y1, 32(DX)
	ADDQ R8, DX
	VMOVUPS Y2, (DX)
	VMOVUPS Y3, 32(DX)
	ADDQ R8, DX
	VMOVUPS Y4, (DX)
	VMOVUPS Y5, 32(DX)
	ADDQ R8, DX
	VMOVUPS Y6, (DX)
	VMOVUPS Y7, 32(DX)
	ADDQ R8, DX
	VMOVUPS Y8, (DX)
	VMOVUPS Y9, 32(DX)
	ADDQ R8, DX
	VMOVUPS Y10, (DX)
	VMOVUPS Y11, 32(DX)
	VZEROUPPER
	RET

// Two rows of the 8×32 AVX-512 kernel: Z(lo) and Z(hi) += a[r]·(Z16, Z17)
// with a[r] broadcast from memory.
#define ROW512(off, lo, hi) \
	VFMADD231PS.BCST off(SI), Z16, lo \
	VFMADD231PS.BCST off(SI), Z17, hi

// Epilogue steps on one row pair: add the bias broadcast in Z16, add a
// residual row at R11, apply max(lo)=Z18 / min(hi)=Z19 keeping NaN.
#define BIAS(off, lo, hi) \
	VBROADCASTSS off(R10), Z16 \
	VADDPS Z16, lo, lo \
	VADDPS Z16, hi, hi
#define RES(lo, hi) \
	VADDPS (R11), lo, lo \
	VADDPS 64(R11), hi, hi \
	ADDQ R12, R11
#define MAXLO(lo, hi) \
	VMAXPS lo, Z18, lo \
	VMAXPS hi, Z18, hi
#define MINHI(lo, hi) \
	VMINPS lo, Z19, lo \
	VMINPS hi, Z19, hi

// func kernel8x32AVX512(kc int, a, b, c *float32, ldc int, acc int, ep *tileEpilogue)
//
// C (rows ldc floats apart) = A·B, or += with acc, for a packed 8-row
// panel a (8 floats per k) and a packed 32-column panel b (32 floats per
// k), then, when ep is not nil, C = act(C + bias[row] + residual).
// Accumulators: Z0..Z15 (row r in Z(2r), Z(2r+1)); B in Z16, Z17; A is
// broadcast from memory by each FMA.
TEXT ·kernel8x32AVX512(SB), NOSPLIT, $0-56
	MOVQ kc+0(FP), CX
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DI
	MOVQ c+24(FP), DX
	MOVQ ldc+32(FP), R8
	SHLQ $2, R8
	MOVQ acc+40(FP), R9
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	VPXORD Z4, Z4, Z4
	VPXORD Z5, Z5, Z5
	VPXORD Z6, Z6, Z6
	VPXORD Z7, Z7, Z7
	VPXORD Z8, Z8, Z8
	VPXORD Z9, Z9, Z9
	VPXORD Z10, Z10, Z10
	VPXORD Z11, Z11, Z11
	VPXORD Z12, Z12, Z12
	VPXORD Z13, Z13, Z13
	VPXORD Z14, Z14, Z14
	VPXORD Z15, Z15, Z15
	TESTQ CX, CX
	JEQ store512

loop512:
	VMOVUPS (DI), Z16
	VMOVUPS 64(DI), Z17
	ROW512(0, Z0, Z1)
	ROW512(4, Z2, Z3)
	ROW512(8, Z4, Z5)
	ROW512(12, Z6, Z7)
	ROW512(16, Z8, Z9)
	ROW512(20, Z10, Z11)
	ROW512(24, Z12, Z13)
	ROW512(28, Z14, Z15)
	ADDQ $32, SI
	ADDQ $128, DI
	DECQ CX
	JNE loop512

store512:
	TESTQ R9, R9
	JEQ over512
	MOVQ DX, R10
	VADDPS (R10), Z0, Z0
	VADDPS 64(R10), Z1, Z1
	ADDQ R8, R10
	VADDPS (R10), Z2, Z2
	VADDPS 64(R10), Z3, Z3
	ADDQ R8, R10
	VADDPS (R10), Z4, Z4
	VADDPS 64(R10), Z5, Z5
	ADDQ R8, R10
	VADDPS (R10), Z6, Z6
	VADDPS 64(R10), Z7, Z7
	ADDQ R8, R10
	VADDPS (R10), Z8, Z8
	VADDPS 64(R10), Z9, Z9
	ADDQ R8, R10
	VADDPS (R10), Z10, Z10
	VADDPS 64(R10), Z11, Z11
	ADDQ R8, R10
	VADDPS (R10), Z12, Z12
	VADDPS 64(R10), Z13, Z13
	ADDQ R8, R10
	VADDPS (R10), Z14, Z14
	VADDPS 64(R10), Z15, Z15

over512:
	MOVQ ep+48(FP), R13
	TESTQ R13, R13
	JEQ write512
	MOVQ 0(R13), R10
	TESTQ R10, R10
	JEQ nobias512
	BIAS(0, Z0, Z1)
	BIAS(4, Z2, Z3)
	BIAS(8, Z4, Z5)
	BIAS(12, Z6, Z7)
	BIAS(16, Z8, Z9)
	BIAS(20, Z10, Z11)
	BIAS(24, Z12, Z13)
	BIAS(28, Z14, Z15)

nobias512:
	MOVQ 8(R13), R11
	TESTQ R11, R11
	JEQ nores512
	MOVQ 16(R13), R12
	SHLQ $2, R12
	RES(Z0, Z1)
	RES(Z2, Z3)
	RES(Z4, Z5)
	RES(Z6, Z7)
	RES(Z8, Z9)
	RES(Z10, Z11)
	RES(Z12, Z13)
	RES(Z14, Z15)

nores512:
	MOVQ 24(R13), R10
	TESTQ R10, R10
	JEQ write512
	VBROADCASTSS 32(R13), Z18
	MAXLO(Z0, Z1)
	MAXLO(Z2, Z3)
	MAXLO(Z4, Z5)
	MAXLO(Z6, Z7)
	MAXLO(Z8, Z9)
	MAXLO(Z10, Z11)
	MAXLO(Z12, Z13)
	MAXLO(Z14, Z15)
	CMPQ R10, $2
	JNE write512
	VBROADCASTSS 36(R13), Z19
	MINHI(Z0, Z1)
	MINHI(Z2, Z3)
	MINHI(Z4, Z5)
	MINHI(Z6, Z7)
	MINHI(Z8, Z9)
	MINHI(Z10, Z11)
	MINHI(Z12, Z13)
	MINHI(Z14, Z15)

write512:
	VMOVUPS Z0, (DX)
	VMOVUPS Z1, 64(DX)
	ADDQ R8, DX
	VMOVUPS Z2, (DX)
	VMOVUPS Z3, 64(DX)
	ADDQ R8, DX
	VMOVUPS Z4, (DX)
	VMOVUPS Z5, 64(DX)
	ADDQ R8, DX
	VMOVUPS Z6, (DX)
	VMOVUPS Z7, 64(DX)
	ADDQ R8, DX
	VMOVUPS Z8, (DX)
	VMOVUPS Z9, 64(DX)
	ADDQ R8, DX
	VMOVUPS Z10, (DX)
	VMOVUPS Z11, 64(DX)
	ADDQ R8, DX
	VMOVUPS Z12, (DX)
	VMOVUPS Z13, 64(DX)
	ADDQ R8, DX
	VMOVUPS Z14, (DX)
	VMOVUPS Z15, 64(DX)
	VZEROUPPER
	RET

// func dwRow3x3AVX512(n int, r0, r1, r2, out, w *float32, ep *tileEpilogue)
//
// One output row of a 3×3 depthwise convolution with stride 1, for n
// outputs (a multiple of 16): out[i] = act(bias + Σ w[3y+x]·r_y[i+x]).
// r0..r2 point at the input rows' first tap. ep holds the bias (as a
// pointer to one float), the activation and its bounds; it is never nil.
TEXT ·dwRow3x3AVX512(SB), NOSPLIT, $0-56
	MOVQ n+0(FP), CX
	MOVQ r0+8(FP), R8
	MOVQ r1+16(FP), R9
	MOVQ r2+24(FP), R10
	MOVQ out+32(FP), DX
	MOVQ w+40(FP), SI
	MOVQ ep+48(FP), R13
	VBROADCASTSS 0(SI), Z0
	VBROADCASTSS 4(SI), Z1
	VBROADCASTSS 8(SI), Z2
	VBROADCASTSS 12(SI), Z3
	VBROADCASTSS 16(SI), Z4
	VBROADCASTSS 20(SI), Z5
	VBROADCASTSS 24(SI), Z6
	VBROADCASTSS 28(SI), Z7
	VBROADCASTSS 32(SI), Z8
	VPXORD Z9, Z9, Z9
	MOVQ 0(R13), R11
	TESTQ R11, R11
	JEQ nobiasdw
	VBROADCASTSS (R11), Z9

nobiasdw:
	MOVQ 24(R13), R12
	VBROADCASTSS 32(R13), Z18
	VBROADCASTSS 36(R13), Z19
	SHRQ $4, CX
	TESTQ CX, CX
	JEQ donedw

loopdw:
	VMOVAPS Z9, Z10
	VFMADD231PS (R8), Z0, Z10
	VFMADD231PS 4(R8), Z1, Z10
	VFMADD231PS 8(R8), Z2, Z10
	VFMADD231PS (R9), Z3, Z10
	VFMADD231PS 4(R9), Z4, Z10
	VFMADD231PS 8(R9), Z5, Z10
	VFMADD231PS (R10), Z6, Z10
	VFMADD231PS 4(R10), Z7, Z10
	VFMADD231PS 8(R10), Z8, Z10
	TESTQ R12, R12
	JEQ storedw
	VMAXPS Z10, Z18, Z10
	CMPQ R12, $2
	JNE storedw
	VMINPS Z10, Z19, Z10

storedw:
	VMOVUPS Z10, (DX)
	ADDQ $64, R8
	ADDQ $64, R9
	ADDQ $64, R10
	ADDQ $64, DX
	DECQ CX
	JNE loopdw

donedw:
	VZEROUPPER
	RET

// func dotAVX2(n int, a, b *float32) float32
//
// Σ a[i]·b[i] over n elements (a multiple of 32) with four 8-wide FMA
// accumulators.
TEXT ·dotAVX2(SB), NOSPLIT, $0-28
	MOVQ n+0(FP), CX
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DI
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	SHRQ $5, CX
	TESTQ CX, CX
	JEQ reducedot

loopdot:
	VMOVUPS (SI), Y4
	VMOVUPS 32(SI), Y5
	VMOVUPS 64(SI), Y6
	VMOVUPS 96(SI), Y7
	VFMADD231PS (DI), Y4, Y0
	VFMADD231PS 32(DI), Y5, Y1
	VFMADD231PS 64(DI), Y6, Y2
	VFMADD231PS 96(DI), Y7, Y3
	ADDQ $128, SI
	ADDQ $128, DI
	DECQ CX
	JNE loopdot

reducedot:
	VADDPS Y1, Y0, Y0
	VADDPS Y3, Y2, Y2
	VADDPS Y2, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS X1, X0, X0
	VMOVHLPS X0, X1, X1
	VADDPS X1, X0, X0
	VMOVSHDUP X0, X1
	VADDSS X1, X0, X0
	VMOVSS X0, ret+24(FP)
	VZEROUPPER
	RET
