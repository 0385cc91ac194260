package parallel

import "syscall"

// osYield gives up the calling thread's CPU to another runnable thread
// (sched_yield), for pollers that may share a CPU with the thread they
// wait for.
func osYield() { syscall.Syscall(syscall.SYS_SCHED_YIELD, 0, 0, 0) }
