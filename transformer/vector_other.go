//go:build !amd64

package transformer

import "github.com/icrl-go/icrl/tensor"

// addRowsVector has no vector kernel on this architecture.
func addRowsVector[F tensor.Float](acc, a []F, rows, w, stride int) bool { return false }

// layerNormBackwardVector has no vector kernel on this architecture.
func layerNormBackwardVector[F tensor.Float](dx, acc, dy, x, mean, rstd []F, lo, hi, d int, gamma []F, add bool) bool {
	return false
}

// reluVector has no vector kernel on this architecture.
func reluVector[F tensor.Float](y, x []F, lo, hi int) int { return 0 }

// reluBackwardVector has no vector kernel on this architecture.
func reluBackwardVector[F tensor.Float](dx, dy, x []F, lo, hi int) int { return 0 }

// layerNormForwardVector has no vector kernel on this architecture.
func layerNormForwardVector[F tensor.Float](y, mean, rstd, x []F, lo, hi, d int, gamma, beta []F, eps float64) bool {
	return false
}

// transposeVector has no vector kernel on this architecture.
func transposeVector[F tensor.Float](dst []F, ldd int, src []F, lds, rows, cols int) bool {
	return false
}
