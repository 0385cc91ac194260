//go:build !amd64

package transformer

// adamVector has no vector kernel on this architecture.
func adamVector(k *adam32, val, grad, m, v []float32) int { return 0 }

// allFiniteVector has no vector kernel on this architecture.
func allFiniteVector(x []float32) int { return 0 }
