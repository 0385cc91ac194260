// Package tensor holds the numeric element types of the module: Float,
// the one constraint of every generic numeric type (vectors, matrices,
// models, quantizers), so that a caller's code generic over the module's
// types names one constraint.
package tensor

// Float is the constraint of every generic numeric type of the module:
// float32 for speed, float64 for gradient checks and exact solvers. Named
// float types are excluded because the matrix kernels of package
// transformer are written for exactly these two.
type Float interface{ float32 | float64 }
