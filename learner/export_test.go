package learner

import (
	"github.com/icrl-go/icrl/game"
	"github.com/icrl-go/icrl/learner/schedule"
)

// Accessors for the external tests (package learner_test), which play
// through package learner/play and so cannot be internal tests.

// OMDSchedule returns m's schedule.
func OMDSchedule(m *OMD) schedule.Schedule { return m.sched }

// OMDTable returns m's policy table x[s·A+a] (not a copy).
func OMDTable(m *OMD) []float64 { return m.x }

// OMDRole returns m's role.
func OMDRole(m *OMD) game.Player { return m.role }
