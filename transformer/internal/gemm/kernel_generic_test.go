//go:build !amd64

package gemm

func kernelVariants() []kernelVariant {
	return []kernelVariant{{"go", goKernel32, goKernel64, goMR}}
}
