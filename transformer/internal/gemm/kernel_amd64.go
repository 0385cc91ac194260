//go:build amd64

package gemm

import "github.com/icrl-go/icrl/transformer/internal/x86"

// kern32AVX2 is the 6×16 float32 micro-kernel (see goKernel for the
// contract); strides are in elements.
//
//go:noescape
func kern32AVX2(kc int, a *float32, rsA, csA int, b *float32, c *float32, ldc int, alpha, beta float32)

// kern64AVX2 is the 6×8 float64 micro-kernel.
//
//go:noescape
func kern64AVX2(kc int, a *float64, rsA, csA int, b *float64, c *float64, ldc int, alpha, beta float64)

// kern32AVX512 is the 16×16 float32 AVX-512 micro-kernel.
//
//go:noescape
func kern32AVX512(kc int, a *float32, rsA, csA int, b *float32, c *float32, ldc int, alpha, beta float32)

// kern64AVX512 is the 16×8 float64 AVX-512 micro-kernel.
//
//go:noescape
func kern64AVX512(kc int, a *float64, rsA, csA int, b *float64, c *float64, ldc int, alpha, beta float64)

var (
	kernel32 kernelFunc[float32] = goKernel32
	kernel64 kernelFunc[float64] = goKernel64
)

func init() {
	switch {
	case x86.AVX512:
		kernel32, mr32 = kern32AVX512, 16
		kernel64, mr64 = kern64AVX512, 16
	case x86.AVX2FMA:
		kernel32, mr32 = kern32AVX2, 6
		kernel64, mr64 = kern64AVX2, 6
	}
}
