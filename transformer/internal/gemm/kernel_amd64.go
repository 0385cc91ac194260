//go:build amd64

package gemm

// cpuid executes the CPUID instruction with the given EAX and ECX inputs.
func cpuid(eaxArg, ecxArg uint32) (eax, ebx, ecx, edx uint32)

// xgetbv0 returns the low 32 bits of extended control register 0.
func xgetbv0() uint32

// hasAVX2FMA reports whether the CPU and OS support AVX2 and FMA3, which the
// AVX2 kernels need; hasAVX512 whether they also support AVX-512F.
var hasAVX2FMA, hasAVX512 = detectCPU()

func detectCPU() (avx2fma, avx512 bool) {
	maxID, _, _, _ := cpuid(0, 0)
	if maxID < 7 {
		return false, false
	}
	_, _, ecx1, _ := cpuid(1, 0)
	const (
		fma     = 1 << 12
		osxsave = 1 << 27
		avx     = 1 << 28
	)
	if ecx1&(fma|osxsave|avx) != fma|osxsave|avx {
		return false, false
	}
	xcr0 := xgetbv0()
	if xcr0&6 != 6 { // OS saves XMM and YMM state
		return false, false
	}
	_, ebx7, _, _ := cpuid(7, 0)
	avx2fma = ebx7&(1<<5) != 0
	// AVX-512F, with the OS saving opmask and all 32 ZMM registers.
	avx512 = avx2fma && ebx7&(1<<16) != 0 && xcr0&0xe0 == 0xe0
	return avx2fma, avx512
}

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
	case hasAVX512:
		kernel32, mr32 = kern32AVX512, 16
		kernel64, mr64 = kern64AVX512, 16
	case hasAVX2FMA:
		kernel32, mr32 = kern32AVX2, 6
		kernel64, mr64 = kern64AVX2, 6
	}
}
