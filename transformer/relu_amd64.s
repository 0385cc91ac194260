//go:build amd64

#include "textflag.h"

// Vector kernels of the ReLU and its derivative; see relu_amd64.go. Both
// give the bits of the Go code they replace, signed zeros included; a NaN
// gives a NaN (the ReLU keeps its payload, where Go's max may not).

// func reluAVX2(y, x *float32, n int)
//
// Sets y[i] = max(x[i], 0) as Go's max does for the first n entries (n a
// positive multiple of 8): MAXPS(0, x) returns x for x > 0 and for a NaN,
// 0 for x < 0 and x itself (±0) for a zero; adding +0 then turns −0 into +0
// and leaves every other value as it is.
TEXT ·reluAVX2(SB), NOSPLIT, $0-24
	MOVQ   y+0(FP), DI
	MOVQ   x+8(FP), SI
	MOVQ   n+16(FP), CX
	VXORPS Y1, Y1, Y1
	XORQ   BX, BX

reluloop:
	VMOVUPS (SI)(BX*4), Y0
	VMAXPS  Y0, Y1, Y2 // Intel's src1 = 0, src2 = x
	VADDPS  Y1, Y2, Y2
	VMOVUPS Y2, (DI)(BX*4)
	ADDQ    $8, BX
	CMPQ    BX, CX
	JB      reluloop
	VZEROUPPER
	RET

// func reluBackwardAVX2(dx, dy, x *float32, n int)
//
// Sets dx[i] = dy[i] where the bits of x[i], as a signed integer, are
// positive (x > 0, +Inf and NaNs with a clear sign bit) and +0 elsewhere,
// for the first n entries (n a positive multiple of 8), as reluBackward.
TEXT ·reluBackwardAVX2(SB), NOSPLIT, $0-32
	MOVQ  dx+0(FP), DI
	MOVQ  dy+8(FP), DX
	MOVQ  x+16(FP), SI
	MOVQ  n+24(FP), CX
	VPXOR Y3, Y3, Y3
	XORQ  BX, BX

reluback:
	VMOVDQU  (SI)(BX*4), Y0
	VPCMPGTD Y3, Y0, Y1 // bits of x > 0
	VANDPS   (DX)(BX*4), Y1, Y1
	VMOVUPS  Y1, (DI)(BX*4)
	ADDQ     $8, BX
	CMPQ     BX, CX
	JB       reluback
	VZEROUPPER
	RET
