//go:build amd64

package x86

// cpuid executes the CPUID instruction with the given EAX and ECX inputs.
func cpuid(eaxArg, ecxArg uint32) (eax, ebx, ecx, edx uint32)

// xgetbv0 returns the low 32 bits of extended control register 0.
func xgetbv0() uint32

func detect() (avx2fma, avx512 bool) {
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
