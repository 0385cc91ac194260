// Package num holds the one floating-point type constraint of the module:
// the element types that the generic vectors, matrices and models accept.
package num

// Float is the constraint of every generic numeric type of the module:
// float32 for speed, float64 for gradient checks and exact solvers. Named
// float types are excluded because the matrix kernels of package
// transformer are written for exactly these two.
type Float interface{ float32 | float64 }
