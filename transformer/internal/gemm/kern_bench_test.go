package gemm

import "testing"

// BenchmarkKernel32 measures the float32 micro-kernel alone on L1-resident
// packed operands (kc = 256), i.e. its peak.
func BenchmarkKernel32(b *testing.B) {
	const kc = 256
	a := make([]float32, mr32*kc)
	bb := make([]float32, nr32*kc)
	c := make([]float32, mr32*nr32)
	for b.Loop() {
		kernel32(kc, &a[0], 1, mr32, &bb[0], &c[0], nr32, 1, 1)
	}
	b.ReportMetric(2*float64(mr32*nr32*kc)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}

// BenchmarkKernel64 measures the float64 micro-kernel alone.
func BenchmarkKernel64(b *testing.B) {
	const kc = 256
	a := make([]float64, mr64*kc)
	bb := make([]float64, nr64*kc)
	c := make([]float64, mr64*nr64)
	for b.Loop() {
		kernel64(kc, &a[0], 1, mr64, &bb[0], &c[0], nr64, 1, 1)
	}
	b.ReportMetric(2*float64(mr64*nr64*kc)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}
