//go:build !linux

package parallel

import "runtime"

// osYield yields to other goroutines; outside Linux there is no portable
// way to give up the thread's CPU from the standard library.
func osYield() { runtime.Gosched() }
