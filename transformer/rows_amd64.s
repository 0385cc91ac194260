//go:build amd64

#include "textflag.h"

// Vector kernels of the LayerNorm and of the sums down rows; see
// rows_amd64.go. Each does, lane by lane, the operations of the Go code it
// replaces, in the same order and rounded separately (no FMA), so the
// results have the bits of that code as the compiler builds it below
// GOAMD64=v3 (from v3 on it may fuse the Go code's multiply-adds).

// func addRowsAVX2(acc, a *float32, rows, w, stride int)
//
// Adds rows rows of a (w entries each, stride apart) to the first w
// entries of acc, one row after the other: acc[j] += a[i·stride+j] for
// i = 0, 1, …, rows−1 in turn. w is a positive multiple of 8, rows ≥ 1.
// Columns go 64 at a time (eight registers), then 8 at a time.
TEXT ·addRowsAVX2(SB), NOSPLIT, $0-40
	MOVQ acc+0(FP), SI
	MOVQ a+8(FP), DI
	MOVQ rows+16(FP), CX
	MOVQ w+24(FP), DX
	MOVQ stride+32(FP), R10
	SHLQ $2, R10            // stride in bytes
	XORQ BX, BX             // first column of the block

wide:
	LEAQ 64(BX), AX
	CMPQ AX, DX
	JA   narrow
	VMOVUPS (SI)(BX*4), Y0
	VMOVUPS 32(SI)(BX*4), Y1
	VMOVUPS 64(SI)(BX*4), Y2
	VMOVUPS 96(SI)(BX*4), Y3
	VMOVUPS 128(SI)(BX*4), Y4
	VMOVUPS 160(SI)(BX*4), Y5
	VMOVUPS 192(SI)(BX*4), Y6
	VMOVUPS 224(SI)(BX*4), Y7
	LEAQ    (DI)(BX*4), R8
	MOVQ    CX, R9

widerow:
	VADDPS (R8), Y0, Y0
	VADDPS 32(R8), Y1, Y1
	VADDPS 64(R8), Y2, Y2
	VADDPS 96(R8), Y3, Y3
	VADDPS 128(R8), Y4, Y4
	VADDPS 160(R8), Y5, Y5
	VADDPS 192(R8), Y6, Y6
	VADDPS 224(R8), Y7, Y7
	ADDQ   R10, R8
	DECQ   R9
	JNZ    widerow
	VMOVUPS Y0, (SI)(BX*4)
	VMOVUPS Y1, 32(SI)(BX*4)
	VMOVUPS Y2, 64(SI)(BX*4)
	VMOVUPS Y3, 96(SI)(BX*4)
	VMOVUPS Y4, 128(SI)(BX*4)
	VMOVUPS Y5, 160(SI)(BX*4)
	VMOVUPS Y6, 192(SI)(BX*4)
	VMOVUPS Y7, 224(SI)(BX*4)
	MOVQ    AX, BX
	JMP     wide

narrow:
	CMPQ    BX, DX
	JAE     done
	VMOVUPS (SI)(BX*4), Y0
	LEAQ    (DI)(BX*4), R8
	MOVQ    CX, R9

narrowrow:
	VADDPS (R8), Y0, Y0
	ADDQ   R10, R8
	DECQ   R9
	JNZ    narrowrow
	VMOVUPS Y0, (SI)(BX*4)
	ADDQ    $8, BX
	JMP     narrow

done:
	VZEROUPPER
	RET

// func lnGradSumsAVX2(x, dy, gamma *float32, n int, mu, r float64) (sg, sgx float64)
//
// gradSums4 on the first n entries (n a positive multiple of 4): lane k of
// each float64 register sums the entries j ≡ k mod 4, as the Go code's
// four partial sums do, and the lanes are added as (0+1)+(2+3).
TEXT ·lnGradSumsAVX2(SB), NOSPLIT, $0-64
	MOVQ         x+0(FP), SI
	MOVQ         dy+8(FP), DI
	MOVQ         gamma+16(FP), DX
	MOVQ         n+24(FP), CX
	VBROADCASTSD mu+32(FP), Y6
	VBROADCASTSD r+40(FP), Y7
	VXORPD       Y0, Y0, Y0 // Σ g·γ
	VXORPD       Y1, Y1, Y1 // Σ g·γ·x̂
	XORQ         BX, BX

sumsloop:
	VCVTPS2PD (DI)(BX*4), Y2
	VCVTPS2PD (DX)(BX*4), Y3
	VMULPD    Y3, Y2, Y2 // g·γ
	VADDPD    Y2, Y0, Y0
	VCVTPS2PD (SI)(BX*4), Y4
	VSUBPD    Y6, Y4, Y4 // x − μ
	VMULPD    Y7, Y4, Y4 // x̂
	VMULPD    Y4, Y2, Y4
	VADDPD    Y4, Y1, Y1
	ADDQ      $4, BX
	CMPQ      BX, CX
	JB        sumsloop

	VEXTRACTF128 $1, Y0, X2
	VHADDPD      X0, X0, X0 // lanes 0+1
	VHADDPD      X2, X2, X2 // lanes 2+3
	VADDSD       X2, X0, X0
	VEXTRACTF128 $1, Y1, X3
	VHADDPD      X1, X1, X1
	VHADDPD      X3, X3, X3
	VADDSD       X3, X1, X1
	VZEROUPPER
	MOVSD        X0, sg+48(FP)
	MOVSD        X1, sgx+56(FP)
	RET

// func lnBackwardRowAVX2(out, x, dy, gamma, accG, accB *float32, n int, mu, r, sg, sgx float64, muF, rF float32, add bool)
//
// The inner loop of layerNormBackwardRows on the first n entries of one
// row (n a positive multiple of 4), four entries at a time:
// out = F(r·((g·γ − sg) − x̂·sgx)) in float64 (added to out in float32
// when add is set), accG += g·((x − μ)·r) and accB += g in float32.
TEXT ·lnBackwardRowAVX2(SB), NOSPLIT, $0-97
	MOVQ         out+0(FP), R8
	MOVQ         x+8(FP), SI
	MOVQ         dy+16(FP), DI
	MOVQ         gamma+24(FP), DX
	MOVQ         accG+32(FP), R9
	MOVQ         accB+40(FP), R10
	MOVQ         n+48(FP), CX
	VBROADCASTSD mu+56(FP), Y8
	VBROADCASTSD r+64(FP), Y9
	VBROADCASTSD sg+72(FP), Y10
	VBROADCASTSD sgx+80(FP), Y11
	VBROADCASTSS muF+88(FP), X12
	VBROADCASTSS rF+92(FP), X13
	MOVBLZX      add+96(FP), AX
	XORQ         BX, BX

rowloop:
	VCVTPS2PD  (SI)(BX*4), Y0
	VSUBPD     Y8, Y0, Y0 // x − μ
	VMULPD     Y9, Y0, Y0 // x̂
	VCVTPS2PD  (DI)(BX*4), Y2
	VCVTPS2PD  (DX)(BX*4), Y3
	VMULPD     Y3, Y2, Y2 // g·γ
	VSUBPD     Y10, Y2, Y2 // g·γ − sg
	VMULPD     Y11, Y0, Y0 // x̂·sgx
	VSUBPD     Y0, Y2, Y2
	VMULPD     Y9, Y2, Y2
	VCVTPD2PSY Y2, X2
	TESTQ      AX, AX
	JZ         store
	VADDPS     (R8)(BX*4), X2, X2

store:
	VMOVUPS X2, (R8)(BX*4)
	VMOVUPS (SI)(BX*4), X4
	VSUBPS  X12, X4, X4 // x − μ in float32
	VMULPS  X13, X4, X4 // x̂ in float32
	VMOVUPS (DI)(BX*4), X5
	VMULPS  X5, X4, X4 // g·x̂
	VADDPS  (R9)(BX*4), X4, X4
	VMOVUPS X4, (R9)(BX*4)
	VADDPS  (R10)(BX*4), X5, X5
	VMOVUPS X5, (R10)(BX*4)
	ADDQ    $4, BX
	CMPQ    BX, CX
	JB      rowloop
	VZEROUPPER
	RET

// func lnForwardRowAVX2(y, x, gamma, beta *float32, n int, dn, eps float64) (mu, r float64)
//
// layerNormRows on one row of n entries (n a positive multiple of 4,
// dn = n as a float64): μ = Σx/n and Σ(x − μ)² each in four float64
// lanes added as (0+1)+(2+3) (sum4, sumSq4), r = 1/√(Σ(x − μ)²/n + ε),
// y = F((x − μ)·r)·γ + β in float32.
TEXT ·lnForwardRowAVX2(SB), NOSPLIT, $0-72
	MOVQ   y+0(FP), DI
	MOVQ   x+8(FP), SI
	MOVQ   gamma+16(FP), DX
	MOVQ   beta+24(FP), R8
	MOVQ   n+32(FP), CX
	MOVSD  dn+40(FP), X3
	VXORPD Y0, Y0, Y0
	VXORPD Y5, Y5, Y5 // c = 0
	XORQ   BX, BX

meanloop:
	VCVTPS2PD (SI)(BX*4), Y1
	VSUBPD    Y5, Y1, Y1
	VADDPD    Y1, Y0, Y0
	ADDQ      $4, BX
	CMPQ      BX, CX
	JB        meanloop
	VEXTRACTF128 $1, Y0, X2
	VHADDPD      X0, X0, X0
	VHADDPD      X2, X2, X2
	VADDSD       X2, X0, X0
	VDIVSD       X3, X0, X0 // μ
	VBROADCASTSD X0, Y5
	VXORPD       Y1, Y1, Y1
	XORQ         BX, BX

varloop:
	VCVTPS2PD (SI)(BX*4), Y2
	VSUBPD    Y5, Y2, Y2
	VMULPD    Y2, Y2, Y2
	VADDPD    Y2, Y1, Y1
	ADDQ      $4, BX
	CMPQ      BX, CX
	JB        varloop
	VEXTRACTF128 $1, Y1, X2
	VHADDPD      X1, X1, X1
	VHADDPD      X2, X2, X2
	VADDSD       X2, X1, X1
	VDIVSD       X3, X1, X1
	VADDSD       eps+48(FP), X1, X1
	VSQRTSD      X1, X1, X1
	MOVQ         $0x3ff0000000000000, AX // 1.0
	MOVQ         AX, X7
	VDIVSD       X1, X7, X7 // r
	VBROADCASTSD X7, Y6
	XORQ         BX, BX

outloop:
	VCVTPS2PD  (SI)(BX*4), Y2
	VSUBPD     Y5, Y2, Y2
	VMULPD     Y6, Y2, Y2
	VCVTPD2PSY Y2, X2
	VMULPS     (DX)(BX*4), X2, X2
	VADDPS     (R8)(BX*4), X2, X2
	VMOVUPS    X2, (DI)(BX*4)
	ADDQ       $4, BX
	CMPQ       BX, CX
	JB         outloop
	VMOVSD     X5, mu+56(FP)
	VMOVSD     X7, r+64(FP)
	VZEROUPPER
	RET
