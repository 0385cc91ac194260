//go:build !amd64

package gemm

var (
	kernel32 kernelFunc[float32] = goKernel32
	kernel64 kernelFunc[float64] = goKernel64
)
