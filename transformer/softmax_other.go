//go:build !amd64

package transformer

// softmaxVector32 has no vector kernel on this architecture.
func softmaxVector32(s []float32) (m, inv float32, ok bool) { return 0, 0, false }

// softmaxAgainVector32 has no vector kernel on this architecture.
func softmaxAgainVector32(s []float32, m, inv float32) bool { return false }

// softmaxGradVector32 has no vector kernel on this architecture.
func softmaxGradVector32(w, g []float32) bool { return false }
