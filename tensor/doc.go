// Package tensor holds the numeric types the module's packages share:
// Float, the one constraint of every generic numeric type (vectors,
// matrices, models, quantizers), and Dense, an n-dimensional array stored
// flat in row-major order, which stands for a matrix or a stacked table in
// place of slices nested three or four deep.
package tensor

// Float is the constraint of every generic numeric type of the module:
// float32 for speed, float64 for gradient checks and exact solvers. Named
// float types are excluded because the matrix kernels of package
// transformer are written for exactly these two.
type Float interface{ float32 | float64 }
