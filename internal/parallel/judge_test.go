package parallel

import (
	"testing"
	"time"
)

// TestJudgeBackOff checks the team's back-off rule: three consecutive
// loops without help put it into serial mode for minBackOff, a spell that
// doubles (up to maxBackOff) while loops keep failing, and one loop in
// which the workers kept up resets both the strikes and the spell.
func TestJudgeBackOff(t *testing.T) {
	var tm Team
	fail := func() { tm.judge(4, 4, time.Microsecond, 0) }              // no worker helped
	ok := func() { tm.judge(2, 4, time.Millisecond, time.Microsecond) } // the workers kept up
	serial := func() bool { return time.Now().Before(tm.serialUntil) }

	fail()
	fail()
	if serial() || tm.strikes != 2 {
		t.Fatalf("after two failures: serial %v, strikes %d; want parallel, 2", serial(), tm.strikes)
	}
	ok()
	if tm.strikes != 0 || tm.backOff != 0 {
		t.Fatalf("a good loop left strikes %d, back-off %v", tm.strikes, tm.backOff)
	}
	fail()
	fail()
	if serial() {
		t.Fatal("two failures after a good loop backed off: the strikes were not reset")
	}
	fail()
	if !serial() || tm.backOff != minBackOff {
		t.Fatalf("three failures: serial %v, back-off %v; want serial for %v", serial(), tm.backOff, minBackOff)
	}
	// Failing again after the spell doubles it, up to the cap.
	want := minBackOff
	for range 10 {
		fail()
		fail()
		fail()
		want = min(2*want, maxBackOff)
		if tm.backOff != want {
			t.Fatalf("back-off %v, want %v", tm.backOff, want)
		}
	}
	// One good loop resets the spell to its minimum.
	ok()
	fail()
	fail()
	fail()
	if tm.backOff != minBackOff {
		t.Errorf("after a good loop the next spell is %v, want %v", tm.backOff, minBackOff)
	}
	// A worker that helped but made the caller wait so long that the loop
	// was no faster than the caller alone counts against the team: on two
	// threads, the caller ran 7 chunks of 8 in 70µs and waited 12µs for
	// the eighth (a worker on the caller's CPU).
	tm = Team{}
	for range 3 {
		tm.judge(7, 8, 70*time.Microsecond, 12*time.Microsecond)
	}
	if !serial() {
		t.Error("three loops the workers did not speed up did not back off")
	}
	// A balanced loop on 16 threads: the caller ran 1 chunk of 16 in 10µs
	// and waited 25µs for the slowest worker, 35µs for what would have
	// taken it 160µs alone. Not a failure, however often it happens.
	tm = Team{}
	for range 10 {
		tm.judge(1, 16, 10*time.Microsecond, 25*time.Microsecond)
	}
	if serial() || tm.strikes != 0 {
		t.Errorf("balanced 16-thread loops: serial %v, strikes %d; want parallel, 0", serial(), tm.strikes)
	}
	// Workers that claimed every chunk before the caller got one helped.
	tm.judge(0, 16, 0, time.Millisecond)
	if tm.strikes != 0 {
		t.Errorf("a loop the workers ran entirely counted as a strike")
	}
}
