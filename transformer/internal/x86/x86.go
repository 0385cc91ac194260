// Package x86 reports the vector instruction sets of the processor that the
// transformer's assembly kernels need, as detected at start-up with CPUID
// and XGETBV (so that the operating system's support for the wider
// registers is checked too). On other architectures every flag is false.
package x86

// AVX2FMA reports whether the CPU and OS support AVX2 and FMA3; AVX512
// whether they also support AVX-512F with the opmask and all 32 ZMM
// registers saved by the OS.
var AVX2FMA, AVX512 = detect()
