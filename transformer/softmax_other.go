//go:build !amd64

package transformer

// softmaxVector32 has no vector kernel on this architecture.
func softmaxVector32(s []float32) bool { return false }
