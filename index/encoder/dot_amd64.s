#include "textflag.h"

// func dot2x4(x *float32, xstride int, w *float32, wstride int, n int, out *[8]float32)
// out[2*t+c] = sum_k x[t*xstride+k] * w[c*wstride+k], t in 0..3, c in 0..1.
// n must be a positive multiple of 8. Requires AVX2 and FMA.
TEXT ·dot2x4(SB), NOSPLIT, $0-48
	MOVQ x+0(FP), SI
	MOVQ xstride+8(FP), BX
	MOVQ w+16(FP), DI
	MOVQ wstride+24(FP), DX
	MOVQ n+32(FP), CX
	MOVQ out+40(FP), R8
	SHLQ $2, BX
	SHLQ $2, DX
	LEAQ (SI)(BX*1), R9
	LEAQ (R9)(BX*1), R10
	LEAQ (R10)(BX*1), R11
	LEAQ (DI)(DX*1), R12
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	XORQ AX, AX

loop:
	VMOVUPS (DI)(AX*1), Y8
	VMOVUPS (R12)(AX*1), Y9
	VMOVUPS (SI)(AX*1), Y10
	VFMADD231PS Y8, Y10, Y0
	VFMADD231PS Y9, Y10, Y1
	VMOVUPS (R9)(AX*1), Y11
	VFMADD231PS Y8, Y11, Y2
	VFMADD231PS Y9, Y11, Y3
	VMOVUPS (R10)(AX*1), Y12
	VFMADD231PS Y8, Y12, Y4
	VFMADD231PS Y9, Y12, Y5
	VMOVUPS (R11)(AX*1), Y13
	VFMADD231PS Y8, Y13, Y6
	VFMADD231PS Y9, Y13, Y7
	ADDQ $32, AX
	SUBQ $8, CX
	JNZ  loop

	// Horizontal sums: Y0..Y3 -> lanes of Y14, Y4..Y7 -> lanes of Y15.
	VHADDPS Y1, Y0, Y0
	VHADDPS Y3, Y2, Y2
	VHADDPS Y2, Y0, Y14
	VHADDPS Y5, Y4, Y4
	VHADDPS Y7, Y6, Y6
	VHADDPS Y6, Y4, Y15
	VPERM2F128 $0x20, Y15, Y14, Y8
	VPERM2F128 $0x31, Y15, Y14, Y9
	VADDPS Y9, Y8, Y8
	VMOVUPS Y8, (R8)
	VZEROUPPER
	RET

// func dot2x4q(x *float32, xstride int, w *int8, wstride int, n int, out *[8]float32)
// As dot2x4 with int8 weights (converted to float in registers; the
// caller applies the per-row scale): x rows are float32 with xstride
// floats between them, w rows int8 with wstride bytes between them.
TEXT ·dot2x4q(SB), NOSPLIT, $0-48
	MOVQ x+0(FP), SI
	MOVQ xstride+8(FP), BX
	MOVQ w+16(FP), DI
	MOVQ wstride+24(FP), DX
	MOVQ n+32(FP), CX
	MOVQ out+40(FP), R8
	SHLQ $2, BX
	LEAQ (SI)(BX*1), R9
	LEAQ (R9)(BX*1), R10
	LEAQ (R10)(BX*1), R11
	LEAQ (DI)(DX*1), R12
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	XORQ AX, AX

qloop:
	VPMOVSXBD (DI)(AX*1), Y8
	VCVTDQ2PS Y8, Y8
	VPMOVSXBD (R12)(AX*1), Y9
	VCVTDQ2PS Y9, Y9
	VMOVUPS (SI)(AX*4), Y10
	VFMADD231PS Y8, Y10, Y0
	VFMADD231PS Y9, Y10, Y1
	VMOVUPS (R9)(AX*4), Y11
	VFMADD231PS Y8, Y11, Y2
	VFMADD231PS Y9, Y11, Y3
	VMOVUPS (R10)(AX*4), Y12
	VFMADD231PS Y8, Y12, Y4
	VFMADD231PS Y9, Y12, Y5
	VMOVUPS (R11)(AX*4), Y13
	VFMADD231PS Y8, Y13, Y6
	VFMADD231PS Y9, Y13, Y7
	ADDQ $8, AX
	CMPQ AX, CX
	JLT  qloop

	VHADDPS Y1, Y0, Y0
	VHADDPS Y3, Y2, Y2
	VHADDPS Y2, Y0, Y14
	VHADDPS Y5, Y4, Y4
	VHADDPS Y7, Y6, Y6
	VHADDPS Y6, Y4, Y15
	VPERM2F128 $0x20, Y15, Y14, Y8
	VPERM2F128 $0x31, Y15, Y14, Y9
	VADDPS Y9, Y8, Y8
	VMOVUPS Y8, (R8)
	VZEROUPPER
	RET

// func dot2x2q(x *float32, xstride int, w *int8, wstride int, n int, out *[4]float32)
// dot2x4q for two rows of x: out[2*t+c], t in 0..1.
TEXT ·dot2x2q(SB), NOSPLIT, $0-48
	MOVQ x+0(FP), SI
	MOVQ xstride+8(FP), BX
	MOVQ w+16(FP), DI
	MOVQ wstride+24(FP), DX
	MOVQ n+32(FP), CX
	MOVQ out+40(FP), R8
	SHLQ $2, BX
	LEAQ (SI)(BX*1), R9
	LEAQ (DI)(DX*1), R12
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	XORQ AX, AX

q2loop:
	VPMOVSXBD (DI)(AX*1), Y8
	VCVTDQ2PS Y8, Y8
	VPMOVSXBD (R12)(AX*1), Y9
	VCVTDQ2PS Y9, Y9
	VMOVUPS (SI)(AX*4), Y10
	VFMADD231PS Y8, Y10, Y0
	VFMADD231PS Y9, Y10, Y1
	VMOVUPS (R9)(AX*4), Y11
	VFMADD231PS Y8, Y11, Y2
	VFMADD231PS Y9, Y11, Y3
	ADDQ $8, AX
	CMPQ AX, CX
	JLT  q2loop

	VHADDPS Y1, Y0, Y0
	VHADDPS Y3, Y2, Y2
	VHADDPS Y2, Y0, Y14
	VEXTRACTF128 $1, Y14, X9
	VADDPS X9, X14, X8
	VMOVUPS X8, (R8)
	VZEROUPPER
	RET
