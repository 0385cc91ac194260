//go:build amd64

#include "textflag.h"

// Vector kernels of softmaxPrefix for float32 rows; see softmax_amd64.go.
// Every operation of expf32 is done as in the Go code, rounded separately
// (no FMA), so each exponential has the bits of expf32.

// log₂e
DATA expc<>+0(SB)/4, $0x3fb8aa3b
DATA expc<>+4(SB)/4, $0x3fb8aa3b
DATA expc<>+8(SB)/4, $0x3fb8aa3b
DATA expc<>+12(SB)/4, $0x3fb8aa3b
DATA expc<>+16(SB)/4, $0x3fb8aa3b
DATA expc<>+20(SB)/4, $0x3fb8aa3b
DATA expc<>+24(SB)/4, $0x3fb8aa3b
DATA expc<>+28(SB)/4, $0x3fb8aa3b
// 0.5
DATA expc<>+32(SB)/4, $0x3f000000
DATA expc<>+36(SB)/4, $0x3f000000
DATA expc<>+40(SB)/4, $0x3f000000
DATA expc<>+44(SB)/4, $0x3f000000
DATA expc<>+48(SB)/4, $0x3f000000
DATA expc<>+52(SB)/4, $0x3f000000
DATA expc<>+56(SB)/4, $0x3f000000
DATA expc<>+60(SB)/4, $0x3f000000
// 1
DATA expc<>+64(SB)/4, $0x3f800000
DATA expc<>+68(SB)/4, $0x3f800000
DATA expc<>+72(SB)/4, $0x3f800000
DATA expc<>+76(SB)/4, $0x3f800000
DATA expc<>+80(SB)/4, $0x3f800000
DATA expc<>+84(SB)/4, $0x3f800000
DATA expc<>+88(SB)/4, $0x3f800000
DATA expc<>+92(SB)/4, $0x3f800000
// ln 2, high part
DATA expc<>+96(SB)/4, $0x3f318000
DATA expc<>+100(SB)/4, $0x3f318000
DATA expc<>+104(SB)/4, $0x3f318000
DATA expc<>+108(SB)/4, $0x3f318000
DATA expc<>+112(SB)/4, $0x3f318000
DATA expc<>+116(SB)/4, $0x3f318000
DATA expc<>+120(SB)/4, $0x3f318000
DATA expc<>+124(SB)/4, $0x3f318000
// ln 2, low part
DATA expc<>+128(SB)/4, $0xb95e8083
DATA expc<>+132(SB)/4, $0xb95e8083
DATA expc<>+136(SB)/4, $0xb95e8083
DATA expc<>+140(SB)/4, $0xb95e8083
DATA expc<>+144(SB)/4, $0xb95e8083
DATA expc<>+148(SB)/4, $0xb95e8083
DATA expc<>+152(SB)/4, $0xb95e8083
DATA expc<>+156(SB)/4, $0xb95e8083
// −87.33
DATA expc<>+160(SB)/4, $0xc2aea8f6
DATA expc<>+164(SB)/4, $0xc2aea8f6
DATA expc<>+168(SB)/4, $0xc2aea8f6
DATA expc<>+172(SB)/4, $0xc2aea8f6
DATA expc<>+176(SB)/4, $0xc2aea8f6
DATA expc<>+180(SB)/4, $0xc2aea8f6
DATA expc<>+184(SB)/4, $0xc2aea8f6
DATA expc<>+188(SB)/4, $0xc2aea8f6
// p₀
DATA expc<>+192(SB)/4, $0x39506967
DATA expc<>+196(SB)/4, $0x39506967
DATA expc<>+200(SB)/4, $0x39506967
DATA expc<>+204(SB)/4, $0x39506967
DATA expc<>+208(SB)/4, $0x39506967
DATA expc<>+212(SB)/4, $0x39506967
DATA expc<>+216(SB)/4, $0x39506967
DATA expc<>+220(SB)/4, $0x39506967
// p₁
DATA expc<>+224(SB)/4, $0x3ab743ce
DATA expc<>+228(SB)/4, $0x3ab743ce
DATA expc<>+232(SB)/4, $0x3ab743ce
DATA expc<>+236(SB)/4, $0x3ab743ce
DATA expc<>+240(SB)/4, $0x3ab743ce
DATA expc<>+244(SB)/4, $0x3ab743ce
DATA expc<>+248(SB)/4, $0x3ab743ce
DATA expc<>+252(SB)/4, $0x3ab743ce
// p₂
DATA expc<>+256(SB)/4, $0x3c088908
DATA expc<>+260(SB)/4, $0x3c088908
DATA expc<>+264(SB)/4, $0x3c088908
DATA expc<>+268(SB)/4, $0x3c088908
DATA expc<>+272(SB)/4, $0x3c088908
DATA expc<>+276(SB)/4, $0x3c088908
DATA expc<>+280(SB)/4, $0x3c088908
DATA expc<>+284(SB)/4, $0x3c088908
// p₃
DATA expc<>+288(SB)/4, $0x3d2aa9c1
DATA expc<>+292(SB)/4, $0x3d2aa9c1
DATA expc<>+296(SB)/4, $0x3d2aa9c1
DATA expc<>+300(SB)/4, $0x3d2aa9c1
DATA expc<>+304(SB)/4, $0x3d2aa9c1
DATA expc<>+308(SB)/4, $0x3d2aa9c1
DATA expc<>+312(SB)/4, $0x3d2aa9c1
DATA expc<>+316(SB)/4, $0x3d2aa9c1
// p₄
DATA expc<>+320(SB)/4, $0x3e2aaaaa
DATA expc<>+324(SB)/4, $0x3e2aaaaa
DATA expc<>+328(SB)/4, $0x3e2aaaaa
DATA expc<>+332(SB)/4, $0x3e2aaaaa
DATA expc<>+336(SB)/4, $0x3e2aaaaa
DATA expc<>+340(SB)/4, $0x3e2aaaaa
DATA expc<>+344(SB)/4, $0x3e2aaaaa
DATA expc<>+348(SB)/4, $0x3e2aaaaa
// p₅
DATA expc<>+352(SB)/4, $0x3f000000
DATA expc<>+356(SB)/4, $0x3f000000
DATA expc<>+360(SB)/4, $0x3f000000
DATA expc<>+364(SB)/4, $0x3f000000
DATA expc<>+368(SB)/4, $0x3f000000
DATA expc<>+372(SB)/4, $0x3f000000
DATA expc<>+376(SB)/4, $0x3f000000
DATA expc<>+380(SB)/4, $0x3f000000
// 127 (an int32)
DATA expc<>+384(SB)/4, $0x0000007f
DATA expc<>+388(SB)/4, $0x0000007f
DATA expc<>+392(SB)/4, $0x0000007f
DATA expc<>+396(SB)/4, $0x0000007f
DATA expc<>+400(SB)/4, $0x0000007f
DATA expc<>+404(SB)/4, $0x0000007f
DATA expc<>+408(SB)/4, $0x0000007f
DATA expc<>+412(SB)/4, $0x0000007f
// 1 in float64
DATA expc<>+416(SB)/8, $0x3ff0000000000000
GLOBL expc<>(SB), RODATA|NOPTR, $424

// −Inf, eight lanes
DATA neginf<>+0(SB)/4, $0xff800000
DATA neginf<>+4(SB)/4, $0xff800000
DATA neginf<>+8(SB)/4, $0xff800000
DATA neginf<>+12(SB)/4, $0xff800000
DATA neginf<>+16(SB)/4, $0xff800000
DATA neginf<>+20(SB)/4, $0xff800000
DATA neginf<>+24(SB)/4, $0xff800000
DATA neginf<>+28(SB)/4, $0xff800000
GLOBL neginf<>(SB), RODATA|NOPTR, $32

// Eight all-ones lanes then eight zero lanes: the eight lanes from entry
// 8 − r are the mask of a vector's first r lanes.
DATA tailmask<>+0(SB)/8, $0xffffffffffffffff
DATA tailmask<>+8(SB)/8, $0xffffffffffffffff
DATA tailmask<>+16(SB)/8, $0xffffffffffffffff
DATA tailmask<>+24(SB)/8, $0xffffffffffffffff
DATA tailmask<>+32(SB)/8, $0
DATA tailmask<>+40(SB)/8, $0
DATA tailmask<>+48(SB)/8, $0
DATA tailmask<>+56(SB)/8, $0
GLOBL tailmask<>(SB), RODATA|NOPTR, $64

// EXP8 sets Y6 = expf32(Y0 − Y15) lane by lane, with Y14 = 0; it uses
// Y0–Y9: x = s − m; the masks x ≥ −87.33 (false for NaN) and x is NaN;
// x = min(x, 0); n = ⌊log₂e·x + 0.5⌋; r = x − n·ln2hi − n·ln2lo; z = r²;
// p by Horner's rule; y = p·z + r + 1; y·2ⁿ, 0 below −87.33, NaN for NaN.
#define EXP8 \
	VSUBPS     Y15, Y0, Y0; \
	VCMPPS     $13, expc<>+160(SB), Y0, Y1; \
	VCMPPS     $3, Y0, Y0, Y9; \
	VANDPS     Y0, Y9, Y9; \
	VMINPS     Y14, Y0, Y0; \
	VMULPS     expc<>+0(SB), Y0, Y2; \
	VADDPS     expc<>+32(SB), Y2, Y2; \
	VROUNDPS   $1, Y2, Y2; \
	VMULPS     expc<>+96(SB), Y2, Y3; \
	VSUBPS     Y3, Y0, Y4; \
	VMULPS     expc<>+128(SB), Y2, Y3; \
	VSUBPS     Y3, Y4, Y4; \
	VMULPS     Y4, Y4, Y5; \
	VMULPS     expc<>+192(SB), Y4, Y6; \
	VADDPS     expc<>+224(SB), Y6, Y6; \
	VMULPS     Y4, Y6, Y6; \
	VADDPS     expc<>+256(SB), Y6, Y6; \
	VMULPS     Y4, Y6, Y6; \
	VADDPS     expc<>+288(SB), Y6, Y6; \
	VMULPS     Y4, Y6, Y6; \
	VADDPS     expc<>+320(SB), Y6, Y6; \
	VMULPS     Y4, Y6, Y6; \
	VADDPS     expc<>+352(SB), Y6, Y6; \
	VMULPS     Y5, Y6, Y6; \
	VADDPS     Y4, Y6, Y6; \
	VADDPS     expc<>+64(SB), Y6, Y6; \
	VCVTTPS2DQ Y2, Y7; \
	VPADDD     expc<>+384(SB), Y7, Y7; \
	VPSLLD     $23, Y7, Y7; \
	VMULPS     Y7, Y6, Y6; \
	VANDPS     Y1, Y6, Y6; \
	VORPS      Y9, Y6, Y6

// TAILMASK sets Y12 to the mask of the first r lanes, r = CX − DX (0–7),
// and R9 to r.
#define TAILMASK \
	MOVQ    CX, R9; \
	SUBQ    DX, R9; \
	MOVQ    $8, R10; \
	SUBQ    R9, R10; \
	LEAQ    tailmask<>(SB), R8; \
	VMOVDQU (R8)(R10*4), Y12

// MAXTAIL folds into Y0 the last r entries at (SI)(DX*4) under the mask
// Y12, with −Inf (Y13) in the lanes past n, and reduces Y0's lanes to
// their maximum in X0.
#define MAXTAIL \
	VMASKMOVPS   (SI)(DX*4), Y12, Y1; \
	VANDNPS      Y13, Y12, Y2; \
	VORPS        Y2, Y1, Y1; \
	VMAXPS       Y1, Y0, Y0; \
	VEXTRACTF128 $1, Y0, X1; \
	VMAXPS       X1, X0, X0; \
	VPERMILPS    $0x4e, X0, X1; \
	VMAXPS       X1, X0, X0; \
	VPERMILPS    $0xb1, X0, X1; \
	VMAXPS       X1, X0, X0

// LANESUM adds the eight float64 lane sums, lanes 0–3 in Y10 and 4–7 in
// Y11, in a fixed order: lanes i and i+4, then i and i+2, then the two
// left; the sum in X10.
#define LANESUM \
	VADDPD       Y11, Y10, Y10; \
	VEXTRACTF128 $1, Y10, X11; \
	VADDPD       X11, X10, X10; \
	VPERMILPD    $1, X10, X11; \
	VADDSD       X11, X10, X10

// INVZ sets X1 to float32(1/z) for the float64 z in X10.
#define INVZ \
	VMOVSD    expc<>+416(SB), X1; \
	VDIVSD    X10, X1, X1; \
	VCVTSD2SS X1, X1, X1

// func softmaxRowAVX2(s *float32, n int) (m, inv float32)
//
// Replaces the first n ≥ 1 entries of s by their softmax by the operations
// of softmaxScalar's Go code, each rounded as there: m = max s,
// e_i = expf32(s_i − m), z = Σ e_i in float64, inv = float32(1/z),
// s_i = e_i·inv; but the first n8 = n &^ 7 terms of z are summed in eight
// lanes (lane i mod 8) added in a fixed order, the last n − n8 one by one
// after them, so z can differ from the Go code's in its last bits (and inv
// then, rarely, in its own). Rows shorter than 8 have the Go code's bits.
// The last n − n8 entries are read and written under a mask.
TEXT ·softmaxRowAVX2(SB), NOSPLIT, $32-24
	MOVQ    s+0(FP), SI
	MOVQ    n+8(FP), CX
	MOVQ    CX, DX
	ANDQ    $-8, DX        // n8
	TAILMASK
	VMOVUPS neginf<>(SB), Y13
	VMOVUPS Y13, Y0
	XORQ    BX, BX
	CMPQ    BX, DX
	JAE     maxtail

maxloop:
	VMAXPS (SI)(BX*4), Y0, Y0
	ADDQ   $8, BX
	CMPQ   BX, DX
	JB     maxloop

maxtail:
	MAXTAIL
	MOVSS        X0, m+16(FP)
	VBROADCASTSS X0, Y15
	VXORPS       Y14, Y14, Y14 // 0
	VXORPS       Y10, Y10, Y10 // sums of lanes 0–3
	VXORPS       Y11, Y11, Y11 // sums of lanes 4–7
	XORQ         BX, BX
	CMPQ         BX, DX
	JAE          expreduce

exploop:
	VMOVUPS (SI)(BX*4), Y0
	EXP8
	VMOVUPS      Y6, (SI)(BX*4)
	VCVTPS2PD    X6, Y8
	VADDPD       Y8, Y10, Y10
	VEXTRACTF128 $1, Y6, X6
	VCVTPS2PD    X6, Y8
	VADDPD       Y8, Y11, Y11
	ADDQ         $8, BX
	CMPQ         BX, DX
	JB           exploop

expreduce:
	LANESUM
	TESTQ        R9, R9
	JZ           expdone
	VMASKMOVPS   (SI)(DX*4), Y12, Y0
	EXP8
	VMASKMOVPS   Y6, Y12, (SI)(DX*4)
	VMOVUPS      Y6, 0(SP)
	XORQ         AX, AX

tailsum:
	VCVTSS2SD (SP)(AX*4), X1, X1
	VADDSD    X1, X10, X10
	INCQ      AX
	CMPQ      AX, R9
	JB        tailsum

expdone:
	INVZ
	MOVSS        X1, inv+20(FP)
	VBROADCASTSS X1, Y13
	XORQ         BX, BX
	CMPQ         BX, DX
	JAE          scaletail

scaleloop:
	VMULPS  (SI)(BX*4), Y13, Y0
	VMOVUPS Y0, (SI)(BX*4)
	ADDQ    $8, BX
	CMPQ    BX, DX
	JB      scaleloop

scaletail:
	TESTQ      R9, R9
	JZ         scaledone
	VMASKMOVPS (SI)(DX*4), Y12, Y0
	VMULPS     Y0, Y13, Y0
	VMASKMOVPS Y0, Y12, (SI)(DX*4)

scaledone:
	VZEROUPPER
	RET

// func expScaleAVX2(s *float32, n int, m, inv float32)
//
// Sets s_i = expf32(s_i − m)·inv for the first n entries, the weights that
// softmaxRowAVX2 computed from the same scores when it returned m and inv,
// bit for bit. The last n − n &^ 7 entries are read and written under a
// mask.
TEXT ·expScaleAVX2(SB), NOSPLIT, $0-24
	MOVQ         s+0(FP), SI
	MOVQ         n+8(FP), CX
	MOVQ         CX, DX
	ANDQ         $-8, DX
	TAILMASK
	VBROADCASTSS m+16(FP), Y15
	VBROADCASTSS inv+20(FP), Y13
	VXORPS       Y14, Y14, Y14
	XORQ         BX, BX
	CMPQ         BX, DX
	JAE          againtail

againloop:
	VMOVUPS (SI)(BX*4), Y0
	EXP8
	VMULPS  Y13, Y6, Y6
	VMOVUPS Y6, (SI)(BX*4)
	ADDQ    $8, BX
	CMPQ    BX, DX
	JB      againloop

againtail:
	TESTQ      R9, R9
	JZ         againdone
	VMASKMOVPS (SI)(DX*4), Y12, Y0
	EXP8
	VMULPS     Y13, Y6, Y6
	VMASKMOVPS Y6, Y12, (SI)(DX*4)

againdone:
	VZEROUPPER
	RET

// func dotAVX2(x, y *float32, n int) float32
//
// Returns Σ x[i]·y[i] over the first n entries (n a positive multiple of
// 8), summed in eight lanes (lane i mod 8) that are then added in a fixed
// order; every product and sum is rounded separately (no FMA).
TEXT ·dotAVX2(SB), NOSPLIT, $0-28
	MOVQ   x+0(FP), SI
	MOVQ   y+8(FP), DI
	MOVQ   n+16(FP), CX
	VXORPS Y0, Y0, Y0
	XORQ   BX, BX

dotloop:
	VMOVUPS (SI)(BX*4), Y1
	VMULPS  (DI)(BX*4), Y1, Y1
	VADDPS  Y1, Y0, Y0
	ADDQ    $8, BX
	CMPQ    BX, CX
	JB      dotloop

	VEXTRACTF128 $1, Y0, X1
	VADDPS       X1, X0, X0 // lanes i and i+4
	VPERMILPS    $0x4e, X0, X1
	VADDPS       X1, X0, X0
	VPERMILPS    $0xb1, X0, X1
	VADDSS       X1, X0, X0
	VZEROUPPER
	MOVSS        X0, ret+24(FP)
	RET

// func gradSubAVX2(w, dg *float32, n int, dot float32)
//
// Sets dg[i] = w[i]·(dg[i] − dot) for the first n entries (n a positive
// multiple of 8).
TEXT ·gradSubAVX2(SB), NOSPLIT, $0-28
	MOVQ         w+0(FP), SI
	MOVQ         dg+8(FP), DI
	MOVQ         n+16(FP), CX
	VBROADCASTSS dot+24(FP), Y2
	XORQ         BX, BX

subloop:
	VMOVUPS (DI)(BX*4), Y1
	VSUBPS  Y2, Y1, Y1
	VMULPS  (SI)(BX*4), Y1, Y1
	VMOVUPS Y1, (DI)(BX*4)
	ADDQ    $8, BX
	CMPQ    BX, CX
	JB      subloop
	VZEROUPPER
	RET

// AVX-512 forms of softmaxRowAVX2 and expScaleAVX2 (softmax_amd64.s),
// sixteen entries at a time, with the same bits: every operation of
// expf32 the same, rounded separately, and the float64 sum of the
// exponentials accumulated in the same eight lanes (lane i mod 8, the
// first eight entries of a block of sixteen before the second eight) and
// added in the same order.

// CONSTS512 broadcasts expf32's constants: log₂e Z16, 0.5 Z17, 1 Z18,
// ln2hi Z19, ln2lo Z20, −87.33 Z21, p₀–p₅ Z22–Z27, 127 Z28; and 0 Z14.
#define CONSTS512 \
	VBROADCASTSS expc<>+0(SB), Z16; \
	VBROADCASTSS expc<>+32(SB), Z17; \
	VBROADCASTSS expc<>+64(SB), Z18; \
	VBROADCASTSS expc<>+96(SB), Z19; \
	VBROADCASTSS expc<>+128(SB), Z20; \
	VBROADCASTSS expc<>+160(SB), Z21; \
	VBROADCASTSS expc<>+192(SB), Z22; \
	VBROADCASTSS expc<>+224(SB), Z23; \
	VBROADCASTSS expc<>+256(SB), Z24; \
	VBROADCASTSS expc<>+288(SB), Z25; \
	VBROADCASTSS expc<>+320(SB), Z26; \
	VBROADCASTSS expc<>+352(SB), Z27; \
	VPBROADCASTD expc<>+384(SB), Z28; \
	VPXORD       Z14, Z14, Z14

// EXP16 sets Z6 = expf32(Z0 − Z15) lane by lane, as EXP8 does (the lanes
// with x < −87.33 zeroed under K1, x itself merged into its NaN lanes
// under K2); it uses Z0–Z9, K1 and K2.
#define EXP16 \
	VSUBPS      Z15, Z0, Z0; \
	VCMPPS      $13, Z21, Z0, K1; \
	VCMPPS      $3, Z0, Z0, K2; \
	VMOVAPS     Z0, Z9; \
	VMINPS      Z14, Z0, Z0; \
	VMULPS      Z16, Z0, Z2; \
	VADDPS      Z17, Z2, Z2; \
	VRNDSCALEPS $1, Z2, Z2; \
	VMULPS      Z19, Z2, Z3; \
	VSUBPS      Z3, Z0, Z4; \
	VMULPS      Z20, Z2, Z3; \
	VSUBPS      Z3, Z4, Z4; \
	VMULPS      Z4, Z4, Z5; \
	VMULPS      Z22, Z4, Z6; \
	VADDPS      Z23, Z6, Z6; \
	VMULPS      Z4, Z6, Z6; \
	VADDPS      Z24, Z6, Z6; \
	VMULPS      Z4, Z6, Z6; \
	VADDPS      Z25, Z6, Z6; \
	VMULPS      Z4, Z6, Z6; \
	VADDPS      Z26, Z6, Z6; \
	VMULPS      Z4, Z6, Z6; \
	VADDPS      Z27, Z6, Z6; \
	VMULPS      Z5, Z6, Z6; \
	VADDPS      Z4, Z6, Z6; \
	VADDPS      Z18, Z6, Z6; \
	VCVTTPS2DQ  Z2, Z7; \
	VPADDD      Z28, Z7, Z7; \
	VPSLLD      $23, Z7, Z7; \
	VMULPS      Z7, Z6, Z6; \
	VMOVAPS.Z   Z6, K1, Z6; \
	VMOVAPS     Z9, K2, Z6

// TAILK sets K3 to the mask of the first r lanes, r = R9 (0–7).
#define TAILK \
	MOVQ  R9, CX; \
	MOVL  $1, AX; \
	SHLL  CX, AX; \
	DECL  AX; \
	KMOVW AX, K3

// func softmaxRowAVX512(s *float32, n int) (m, inv float32)
TEXT ·softmaxRowAVX512(SB), NOSPLIT, $32-24
	MOVQ s+0(FP), SI
	MOVQ n+8(FP), CX
	MOVQ CX, DX
	ANDQ $-8, DX  // n8
	MOVQ CX, R9
	SUBQ DX, R9   // r = n − n8
	MOVQ DX, R11
	ANDQ $-16, R11 // n16

	// The maximum: sixteen at a time, then the last eight and the last r
	// (under a mask, −Inf in the lanes past n).
	VBROADCASTSS neginf<>(SB), Z0
	XORQ         BX, BX
	CMPQ         BX, R11
	JAE          max16done

max16loop:
	VMAXPS (SI)(BX*4), Z0, Z0
	ADDQ   $16, BX
	CMPQ   BX, R11
	JB     max16loop

max16done:
	VEXTRACTF64X4 $1, Z0, Y1
	VMAXPS        Y1, Y0, Y0
	CMPQ          BX, DX
	JAE           max8done
	VMAXPS        (SI)(BX*4), Y0, Y0

max8done:
	MOVQ       $8, R10
	SUBQ       R9, R10
	LEAQ       tailmask<>(SB), R8
	VMOVDQU    (R8)(R10*4), Y12
	VMOVUPS    neginf<>(SB), Y13
	MAXTAIL
	VMOVSS       X0, m+16(FP)
	VBROADCASTSS X0, Z15
	CONSTS512

	// The exponentials and their sum in eight float64 lanes (Z10).
	VPXORQ Z10, Z10, Z10
	XORQ   BX, BX
	CMPQ   BX, R11
	JAE    exp16done

exp16loop:
	VMOVUPS       (SI)(BX*4), Z0
	EXP16
	VMOVUPS       Z6, (SI)(BX*4)
	VCVTPS2PD     Y6, Z8
	VADDPD        Z8, Z10, Z10
	VEXTRACTF64X4 $1, Z6, Y7
	VCVTPS2PD     Y7, Z8
	VADDPD        Z8, Z10, Z10
	ADDQ          $16, BX
	CMPQ          BX, R11
	JB            exp16loop

exp16done:
	CMPQ      BX, DX
	JAE       exp8done
	VMOVUPS   (SI)(BX*4), Y0 // the last eight (upper lanes zero)
	EXP16
	VMOVUPS   Y6, (SI)(BX*4)
	VCVTPS2PD Y6, Z8
	VADDPD    Z8, Z10, Z10

exp8done:
	VEXTRACTF64X4 $1, Z10, Y11
	LANESUM
	TESTQ         R9, R9
	JZ            expdone
	TAILK
	VMOVUPS.Z     (SI)(DX*4), K3, Z0
	EXP16
	VMOVUPS       Z6, K3, (SI)(DX*4)
	VMOVUPS       Y6, 0(SP)
	XORQ          AX, AX

tailsum:
	VCVTSS2SD (SP)(AX*4), X1, X1
	VADDSD    X1, X10, X10
	INCQ      AX
	CMPQ      AX, R9
	JB        tailsum

expdone:
	INVZ
	VMOVSS       X1, inv+20(FP)
	VBROADCASTSS X1, Z13
	XORQ         BX, BX
	CMPQ         BX, R11
	JAE          scale16done

scale16loop:
	VMULPS  (SI)(BX*4), Z13, Z0
	VMOVUPS Z0, (SI)(BX*4)
	ADDQ    $16, BX
	CMPQ    BX, R11
	JB      scale16loop

scale16done:
	CMPQ    BX, DX
	JAE     scaletail
	VMULPS  (SI)(BX*4), Y13, Y0
	VMOVUPS Y0, (SI)(BX*4)

scaletail:
	TESTQ     R9, R9
	JZ        scaledone
	TAILK
	VMOVUPS.Z (SI)(DX*4), K3, Z0
	VMULPS    Z13, Z0, Z0
	VMOVUPS   Z0, K3, (SI)(DX*4)

scaledone:
	VZEROUPPER
	RET

// func expScaleAVX512(s *float32, n int, m, inv float32)
TEXT ·expScaleAVX512(SB), NOSPLIT, $0-24
	MOVQ         s+0(FP), SI
	MOVQ         n+8(FP), CX
	MOVQ         CX, R9
	ANDQ         $7, R9   // r
	MOVQ         CX, DX
	ANDQ         $-8, DX  // n8
	MOVQ         DX, R11
	ANDQ         $-16, R11 // n16
	VBROADCASTSS m+16(FP), Z15
	VBROADCASTSS inv+20(FP), Z13
	CONSTS512
	XORQ         BX, BX
	CMPQ         BX, R11
	JAE          again16done

again16loop:
	VMOVUPS (SI)(BX*4), Z0
	EXP16
	VMULPS  Z13, Z6, Z6
	VMOVUPS Z6, (SI)(BX*4)
	ADDQ    $16, BX
	CMPQ    BX, R11
	JB      again16loop

again16done:
	CMPQ    BX, DX
	JAE     again8done
	VMOVUPS (SI)(BX*4), Y0
	EXP16
	VMULPS  Z13, Z6, Z6
	VMOVUPS Y6, (SI)(BX*4)

again8done:
	TESTQ     R9, R9
	JZ        againdone
	TAILK
	VMOVUPS.Z (SI)(DX*4), K3, Z0
	EXP16
	VMULPS    Z13, Z6, Z6
	VMOVUPS   Z6, K3, (SI)(DX*4)

againdone:
	VZEROUPPER
	RET
