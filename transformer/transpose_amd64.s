//go:build amd64

#include "textflag.h"

// func transposeAVX2(dst *float32, ldd int, src *float32, lds int, rows8, cols8 int)
//
// Sets dst[j·ldd + i] = src[i·lds + j] for i < 8·rows8, j < 8·cols8, an
// 8 × 8 block at a time: eight rows loaded, interleaved by pairs
// (VUNPCKLPS/VUNPCKHPS), by fours (VSHUFPS) and across the 128-bit halves
// (VPERM2F128) into eight columns, stored as rows of dst.
TEXT ·transposeAVX2(SB), NOSPLIT, $0-48
	MOVQ dst+0(FP), DI
	MOVQ ldd+8(FP), R8
	SHLQ $2, R8          // ldd in bytes
	MOVQ src+16(FP), SI
	MOVQ lds+24(FP), R9
	SHLQ $2, R9          // lds in bytes
	MOVQ rows8+32(FP), R10
	MOVQ cols8+40(FP), R11
	LEAQ (R9)(R9*2), R12 // 3·lds
	LEAQ (R8)(R8*2), R13 // 3·ldd

rowblock:
	MOVQ SI, AX // src of this block: row block, column block 0
	MOVQ DI, BX // dst of this block: rows 0–7, columns of the row block
	MOVQ R11, CX

colblock:
	MOVQ    AX, DX
	VMOVUPS (DX), Y0
	VMOVUPS (DX)(R9*1), Y1
	VMOVUPS (DX)(R9*2), Y2
	VMOVUPS (DX)(R12*1), Y3
	LEAQ    (DX)(R9*4), DX
	VMOVUPS (DX), Y4
	VMOVUPS (DX)(R9*1), Y5
	VMOVUPS (DX)(R9*2), Y6
	VMOVUPS (DX)(R12*1), Y7

	VUNPCKLPS Y1, Y0, Y8  // a0 b0 a1 b1 | a4 b4 a5 b5
	VUNPCKHPS Y1, Y0, Y9  // a2 b2 a3 b3 | a6 b6 a7 b7
	VUNPCKLPS Y3, Y2, Y10 // c0 d0 c1 d1 | …
	VUNPCKHPS Y3, Y2, Y11
	VUNPCKLPS Y5, Y4, Y12
	VUNPCKHPS Y5, Y4, Y13
	VUNPCKLPS Y7, Y6, Y14
	VUNPCKHPS Y7, Y6, Y15

	VSHUFPS $0x44, Y10, Y8, Y0   // a0 b0 c0 d0 | a4 b4 c4 d4
	VSHUFPS $0xee, Y10, Y8, Y1   // a1 b1 c1 d1 | a5 …
	VSHUFPS $0x44, Y11, Y9, Y2   // a2 … | a6 …
	VSHUFPS $0xee, Y11, Y9, Y3   // a3 … | a7 …
	VSHUFPS $0x44, Y14, Y12, Y4  // e0 f0 g0 h0 | e4 …
	VSHUFPS $0xee, Y14, Y12, Y5
	VSHUFPS $0x44, Y15, Y13, Y6
	VSHUFPS $0xee, Y15, Y13, Y7

	MOVQ       BX, DX
	VPERM2F128 $0x20, Y4, Y0, Y8 // column 0
	VMOVUPS    Y8, (DX)
	VPERM2F128 $0x20, Y5, Y1, Y8 // column 1
	VMOVUPS    Y8, (DX)(R8*1)
	VPERM2F128 $0x20, Y6, Y2, Y8
	VMOVUPS    Y8, (DX)(R8*2)
	VPERM2F128 $0x20, Y7, Y3, Y8
	VMOVUPS    Y8, (DX)(R13*1)
	LEAQ       (DX)(R8*4), DX
	VPERM2F128 $0x31, Y4, Y0, Y8 // column 4
	VMOVUPS    Y8, (DX)
	VPERM2F128 $0x31, Y5, Y1, Y8
	VMOVUPS    Y8, (DX)(R8*1)
	VPERM2F128 $0x31, Y6, Y2, Y8
	VMOVUPS    Y8, (DX)(R8*2)
	VPERM2F128 $0x31, Y7, Y3, Y8
	VMOVUPS    Y8, (DX)(R13*1)

	ADDQ $32, AX          // next 8 columns of src
	LEAQ (BX)(R8*8), BX   // next 8 rows of dst
	DECQ CX
	JNZ  colblock

	LEAQ (SI)(R9*8), SI // next 8 rows of src
	ADDQ $32, DI        // next 8 columns of dst
	DECQ R10
	JNZ  rowblock
	VZEROUPPER
	RET
