//go:build amd64

package gemm

import "github.com/icrl-go/icrl/transformer/internal/x86"

// kernelVariants lists the micro-kernels this machine can run, so that the
// tests cover the ones not chosen at start-up.
func kernelVariants() []kernelVariant {
	v := []kernelVariant{{"go", goKernel32, goKernel64, goMR}}
	if x86.AVX2FMA {
		v = append(v, kernelVariant{"avx2", kern32AVX2, kern64AVX2, 6})
	}
	if x86.AVX512 {
		v = append(v, kernelVariant{"avx512", kern32AVX512, kern64AVX512, 16})
	}
	return v
}
