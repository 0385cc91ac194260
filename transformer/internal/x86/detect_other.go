//go:build !amd64

package x86

func detect() (avx2fma, avx512 bool) { return false, false }
