package parallel

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// Team is a set of persistent worker goroutines for many short parallel
// loops in quick succession, such as the matrix products and element-wise
// operations of one transformer training step.
//
// [Blocks] starts a goroutine per block, and the runtime then wakes an idle
// thread; on a virtual machine whose idle CPU has halted, that wake-up
// costs tens of microseconds, as much as a small block's work. A Team's
// workers instead keep polling for the next loop for [Team.Spin] after
// finishing one before they park, and the caller polls for their
// completion the same way, so back-to-back loops hand work over without
// sleeping. The chunks of a loop are claimed one at a time, by the caller
// as well as the workers, so a worker that is late (its CPU taken by
// another thread) does not hold the loop up: the caller runs the chunks it
// has not claimed. Pollers that have waited more than a few microseconds
// yield their thread to the operating system between polls, so that a
// kernel which packs the caller and the workers onto one CPU (as some
// virtual machines' kernels do) still gets about the speed of one thread
// rather than losing time slices to polling.
//
// The zero value is ready to use; workers are started on first use and
// live for the rest of the process, parked when idle. A Team runs one loop
// at a time: a call that finds it busy (another goroutine's loop, or a loop
// nested inside one of its chunks) runs its whole range on the calling
// goroutine, which is what a machine already busy with that many loops
// should do.
type Team struct {
	// Spin is how long an idle worker, or a caller waiting for its
	// workers, polls before parking; zero means [DefaultSpin]. Set it
	// before the first loop.
	Spin time.Duration

	busy sync.Mutex // held by the goroutine whose loop the team runs
	// Back-off state, guarded by busy: see judge.
	strikes     int
	backOff     time.Duration
	serialUntil time.Time
	spells      atomic.Int64 // serial spells entered, for SerialSpells
	grow        sync.Mutex   // guards workers
	workers     []*teamWorker
}

// DefaultSpin is the polling time of a [Team] whose Spin is zero: long
// enough to bridge the serial work between the parallel loops of a small
// training step, short enough that an idle worker parks soon after.
const DefaultSpin = 200 * time.Microsecond

// Shared is the team of the module's hot loops (the transformer's matrix
// products and element-wise operations), shared so that they reuse one set
// of workers.
var Shared = new(Team)

// Worker states.
const (
	stateIdle    int32 = iota // polling for a task
	stateTask                 // a task has been posted
	stateRunning              // the worker took the task
	stateParked               // blocked on wake
)

type teamWorker struct {
	state atomic.Int32
	wake  chan struct{} // buffered, one token
	loop  *teamLoop     // written by the poster before stateTask
}

// teamLoop is one call of [Team.For]. Its chunks are claimed through next.
// word counts the workers it was posted to that have neither finished nor
// been withdrawn, and holds parkedBit once the caller has parked, so that
// the last worker's decrement and the caller's decision to park cannot
// miss each other.
type teamLoop struct {
	fn   func(lo, hi int)
	n, k int
	next atomic.Int64
	word atomic.Int32
	done chan struct{}
	spin time.Duration
}

const parkedBit int32 = 1 << 30

var loopPool = sync.Pool{New: func() any { return &teamLoop{done: make(chan struct{}, 1)} }}

// For splits [0, n) into k = min(chunks, n) contiguous chunks
// [c·n/k, (c+1)·n/k) and calls fn(lo, hi) once for each, on the calling
// goroutine and up to threads−1 of the team's workers; a chunk may run on
// any of them, so fn must write only outputs owned by its chunk, and then
// the result does not depend on the schedule. It returns when every chunk
// is done. With threads ≤ 1, or k ≤ 1, or the team busy or backing off
// (see judge), the chunks run in order on the calling goroutine.
func (t *Team) For(n, chunks, threads int, fn func(lo, hi int)) {
	if n <= 0 {
		return
	}
	k := max(1, min(chunks, n))
	threads = min(threads, k)
	if threads <= 1 || !t.busy.TryLock() {
		serialChunks(n, k, fn)
		return
	}
	start := time.Now()
	if start.Before(t.serialUntil) {
		t.busy.Unlock()
		serialChunks(n, k, fn)
		return
	}
	defer t.busy.Unlock()
	ws := t.team(threads - 1)
	loop := loopPool.Get().(*teamLoop)
	loop.fn, loop.n, loop.k, loop.spin = fn, n, k, t.spin()
	loop.next.Store(0)
	loop.word.Store(int32(threads - 1))
	woke := false // whether a worker had to be woken from parking
	for _, w := range ws[:threads-1] {
		w.loop = loop
		if w.state.Swap(stateTask) == stateParked {
			w.wake <- struct{}{}
			woke = true
		}
	}
	mine := loop.work()
	mid := time.Now()
	// Every chunk is claimed. Withdraw the task from the workers that have
	// not taken it yet; wait for those that have.
	joined := threads - 1
	for _, w := range ws[:threads-1] {
		if w.state.CompareAndSwap(stateTask, stateIdle) {
			w.loop = nil
			loop.word.Add(-1)
			joined--
		}
	}
	loop.await()
	loop.fn = nil
	loopPool.Put(loop)
	if !woke { // a parked worker is expected to be late
		if joined == 0 {
			mine = k // withdrawn from every worker: no help, whatever was claimed
		}
		t.judge(mine, k, mid.Sub(start), time.Since(mid))
	}
}

// serialChunks runs the k chunks of [Team.For] in order on the calling
// goroutine.
func serialChunks(n, k int, fn func(lo, hi int)) {
	for c := range k {
		fn(c*n/k, (c+1)*n/k)
	}
}

// Back-off of a Team whose workers do not run alongside the caller.
const (
	// strikesToBackOff consecutive loops that the workers did not speed
	// up (see judge) put the team into serial mode.
	strikesToBackOff = 3
	// minBackOff and maxBackOff bound the serial spell, which doubles
	// each time the loops after one still fail the test.
	minBackOff = 10 * time.Millisecond
	maxBackOff = 250 * time.Millisecond
	// minStrikeWait is the least wait that counts against the workers.
	minStrikeWait = 5 * time.Microsecond
)

// judge updates the back-off state after a parallel loop of k chunks of
// which the caller ran mine, taking own, before it waited wait for its
// workers (mine = k when no worker helped). The loop counts against the
// workers when it took as long as the caller alone would have at its own
// pace, own·k/mine, or longer: the workers then do not run
// beside the caller, as when the kernel has put their threads on the
// caller's CPU or another program holds the other CPUs, and the loops run
// serially for a while, so that the workers park and stop taking the
// CPU's time; parallel loops are tried again after it. A wait longer than
// the caller's own share is not in itself a failure: with many threads
// the caller runs one chunk of many and then waits for the slowest
// worker. Called with t.busy held.
func (t *Team) judge(mine, k int, own, wait time.Duration) {
	helped := mine < k
	fast := wait < minStrikeWait || mine == 0 ||
		(own+wait)*time.Duration(mine) < own*time.Duration(k)
	if helped && fast {
		t.strikes = 0
		t.backOff = 0
		return
	}
	t.strikes++
	if t.strikes < strikesToBackOff {
		return
	}
	t.strikes = 0
	t.backOff = min(max(2*t.backOff, minBackOff), maxBackOff)
	t.serialUntil = time.Now().Add(t.backOff)
	t.spells.Add(1)
}

// SerialSpells returns how many times the team has gone into serial mode
// (see judge), for benchmarks that check whether their loops ran in
// parallel.
func (t *Team) SerialSpells() int64 { return t.spells.Load() }

// work claims and runs chunks until none is left, and returns how many
// it ran.
func (l *teamLoop) work() int {
	ran := 0
	for {
		c := int(l.next.Add(1) - 1)
		if c >= l.k {
			return ran
		}
		l.fn(c*l.n/l.k, (c+1)*l.n/l.k)
		ran++
	}
}

// await polls until every worker that took the loop is done, parking after
// the spin time.
func (l *teamLoop) await() {
	var p poller
	for {
		v := l.word.Load()
		if v == 0 {
			return
		}
		if p.expired(l.spin) && l.word.CompareAndSwap(v, v|parkedBit) {
			<-l.done // sent by the worker whose decrement left parkedBit alone
			return
		}
	}
}

// poller paces a polling loop: the clock is read, and the processor
// yielded, once every pollBatch polls, so that a poll costs little more
// than the atomic load it repeats. For the first osYieldAfter it yields to
// other goroutines only (runtime.Gosched); after that it yields the thread
// to the operating system (osYield), because a thread still polling by
// then may share its CPU with the thread it waits for: a kernel may pack
// both onto one CPU, as some virtual machines' kernels do, and then a
// thread that polls without giving up the CPU holds up the other for its
// whole time slice.
type poller struct {
	n     int
	start time.Time
}

const (
	// pollBatch polls take a microsecond or two.
	pollBatch = 1024
	// osYieldAfter is the polling time after which a poller yields its
	// thread: longer than a balanced loop's wait, short next to a time
	// slice.
	osYieldAfter = 10 * time.Microsecond
)

// expired reports whether d has passed since the first poll.
func (p *poller) expired(d time.Duration) bool {
	p.n++
	if p.n%pollBatch != 0 {
		return false
	}
	now := time.Now()
	if p.start.IsZero() {
		p.start = now
	}
	waited := now.Sub(p.start)
	if waited >= osYieldAfter {
		osYield()
	} else {
		runtime.Gosched()
	}
	return waited > d
}

func (t *Team) spin() time.Duration {
	if t.Spin > 0 {
		return t.Spin
	}
	return DefaultSpin
}

// team returns at least m workers, starting the missing ones.
func (t *Team) team(m int) []*teamWorker {
	t.grow.Lock()
	defer t.grow.Unlock()
	for len(t.workers) < m {
		w := &teamWorker{wake: make(chan struct{}, 1)}
		t.workers = append(t.workers, w)
		go t.run(w)
	}
	return t.workers
}

// run is a worker's loop: poll for a task, take it, work, report, repeat.
func (t *Team) run(w *teamWorker) {
	spin := t.spin()
	for {
		var p poller
		for w.state.Load() != stateTask || !w.state.CompareAndSwap(stateTask, stateRunning) {
			if p.expired(spin) && w.state.CompareAndSwap(stateIdle, stateParked) {
				<-w.wake // the poster set stateTask before sending
				// The task may have been withdrawn meanwhile: poll
				// afresh, for the loops that follow it.
				p = poller{}
			}
		}
		loop := w.loop
		w.loop = nil
		loop.work()
		// Idle before reporting: the caller posts its next loop only
		// after this one is reported done.
		w.state.Store(stateIdle)
		if loop.word.Add(-1) == parkedBit {
			loop.done <- struct{}{}
		}
	}
}
