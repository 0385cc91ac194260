package main

import (
	"github.com/icrl-go/icrl/game"
	"github.com/icrl-go/icrl/learner"
	"github.com/icrl-go/icrl/learner/play"
	"github.com/icrl-go/icrl/learner/schedule"
)

// banditGamma is the exploration floor the multiplicative-weights and
// regret-matching learners use under bandit feedback, so that their
// importance-weighted estimates stay bounded (at most K/γ).
const banditGamma = 0.05

// learners maps the names of -learners to constructors. Each gets the number
// of actions, the horizon T, whether it plays the column role, and the
// feedback model.
var learners = map[string]maker{
	"omd": func(actions, horizon int, col bool, fb play.Feedback) (learner.Learner, error) {
		return learner.NewOMD(learner.OMDConfig{Actions: actions, Horizon: horizon, Role: role(col)})
	},
	"omd-paper": func(actions, horizon int, col bool, fb play.Feedback) (learner.Learner, error) {
		return learner.NewOMD(learner.OMDConfig{Actions: actions, Horizon: horizon, Role: role(col), Schedule: schedule.Paper{}})
	},
	"omwu": func(actions, horizon int, col bool, fb play.Feedback) (learner.Learner, error) {
		return learner.NewOptimisticMWU(learner.MWUConfig{Actions: actions, Floor: gamma(fb)})
	},
	"mwu": func(actions, horizon int, col bool, fb play.Feedback) (learner.Learner, error) {
		return learner.NewMWU(learner.MWUConfig{Actions: actions, Floor: gamma(fb)})
	},
	"exp3ix": func(actions, horizon int, col bool, fb play.Feedback) (learner.Learner, error) {
		return learner.NewExp3IX(learner.Exp3IXConfig{Actions: actions, Horizon: horizon})
	},
	"rm": func(actions, horizon int, col bool, fb play.Feedback) (learner.Learner, error) {
		return learner.NewRegretMatching(learner.RegretMatchingConfig{Actions: actions, Floor: gamma(fb)})
	},
	"rm+": func(actions, horizon int, col bool, fb play.Feedback) (learner.Learner, error) {
		return learner.NewRegretMatching(learner.RegretMatchingConfig{Actions: actions, Plus: true, Floor: gamma(fb)})
	},
}

func role(col bool) game.Player {
	if col {
		return game.ColumnPlayer
	}
	return game.RowPlayer
}

func gamma(fb play.Feedback) float64 {
	if fb == play.Bandit {
		return banditGamma
	}
	return 0
}
