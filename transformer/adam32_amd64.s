//go:build amd64

#include "textflag.h"

// func adamAVX2(val, grad, m, v *float32, n int, k *adam32)
//
// For each entry, as adam32.updateGo without weight decay:
//   m = m·b1 + c1·g;  v = v·b2 + (c2·g)·g;  val += (negStep·m) / (√v / bc2sqrt + eps)
// with every operation rounded (no FMA), so the bits match the Go loop.
TEXT ·adamAVX2(SB), NOSPLIT, $0-48
	MOVQ val+0(FP), DI
	MOVQ grad+8(FP), SI
	MOVQ m+16(FP), R8
	MOVQ v+24(FP), R9
	MOVQ n+32(FP), CX
	MOVQ k+40(FP), AX
	VBROADCASTSS 0(AX), Y8   // b1
	VBROADCASTSS 4(AX), Y9   // b2
	VBROADCASTSS 8(AX), Y10  // c1
	VBROADCASTSS 12(AX), Y11 // c2
	VBROADCASTSS 16(AX), Y12 // negStep
	VBROADCASTSS 20(AX), Y13 // bc2sqrt
	VBROADCASTSS 24(AX), Y14 // eps
	XORQ BX, BX

loop:
	VMOVUPS (SI)(BX*4), Y0    // g
	VMULPS  (R8)(BX*4), Y8, Y1 // m·b1
	VMULPS  Y0, Y10, Y2        // c1·g
	VADDPS  Y2, Y1, Y1         // m
	VMOVUPS Y1, (R8)(BX*4)
	VMULPS  Y0, Y11, Y3        // c2·g
	VMULPS  Y0, Y3, Y3         // (c2·g)·g
	VMULPS  (R9)(BX*4), Y9, Y4 // v·b2
	VADDPS  Y3, Y4, Y4         // v
	VMOVUPS Y4, (R9)(BX*4)
	VSQRTPS Y4, Y5
	VDIVPS  Y13, Y5, Y5        // √v / bc2sqrt
	VADDPS  Y14, Y5, Y5        // + eps
	VMULPS  Y1, Y12, Y6        // negStep·m
	VDIVPS  Y5, Y6, Y6         // / den
	VADDPS  (DI)(BX*4), Y6, Y6 // val + step
	VMOVUPS Y6, (DI)(BX*4)
	ADDQ    $8, BX
	CMPQ    BX, CX
	JB      loop
	VZEROUPPER
	RET

// func nonFiniteAVX2(x *float32, n int) bool
//
// Reports whether any of the first n entries of x (n a positive multiple of
// 8) is NaN or infinite: (bits & 0x7f800000) + 0x00800000 carries into the
// sign bit exactly when the exponent field is all ones.
TEXT ·nonFiniteAVX2(SB), NOSPLIT, $0-17
	MOVQ         x+0(FP), SI
	MOVQ         n+8(FP), CX
	MOVL         $0x7f800000, AX
	MOVD         AX, X8
	VPBROADCASTD X8, Y8
	MOVL         $0x00800000, AX
	MOVD         AX, X9
	VPBROADCASTD X9, Y9
	VPXOR        Y0, Y0, Y0
	XORQ         BX, BX

check:
	VPAND  (SI)(BX*4), Y8, Y2
	VPADDD Y9, Y2, Y2
	VPOR   Y2, Y0, Y0
	ADDQ   $8, BX
	CMPQ   BX, CX
	JB     check
	VMOVMSKPS Y0, AX
	VZEROUPPER
	TESTL AX, AX
	SETNE ret+16(FP)
	RET
