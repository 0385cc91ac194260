//go:build amd64

package transformer

import (
	"github.com/icrl-go/icrl/tensor"
	"github.com/icrl-go/icrl/transformer/internal/x86"
)

// transposeAVX2 sets dst[j·ldd + i] = src[i·lds + j] for i < 8·rows8 and
// j < 8·cols8 (rows8, cols8 ≥ 1).
//
//go:noescape
func transposeAVX2(dst *float32, ldd int, src *float32, lds int, rows8, cols8 int)

// transposeVector sets dst[j·ldd + i] = src[i·lds + j] for i < rows and
// j < cols on the vector kernel and reports true, or reports false, doing
// nothing, unless the entries are float32, rows and cols are positive
// multiples of 8 and the machine has AVX2. It panics, before writing, if
// dst or src is too short for the last entry it would touch.
func transposeVector[F tensor.Float](dst []F, ldd int, src []F, lds, rows, cols int) bool {
	d32, ok := any(dst).([]float32)
	if !ok || !x86.AVX2FMA || rows <= 0 || cols <= 0 || rows%8 != 0 || cols%8 != 0 {
		return false
	}
	s32 := any(src).([]float32)
	_ = d32[(cols-1)*ldd+rows-1]
	_ = s32[(rows-1)*lds+cols-1]
	transposeAVX2(&d32[0], ldd, &s32[0], lds, rows/8, cols/8)
	return true
}
