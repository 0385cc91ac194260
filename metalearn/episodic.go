package metalearn

import (
	"fmt"

	"github.com/icrl-go/icrl"
	"github.com/icrl-go/icrl/internal/nilness"
	"github.com/icrl-go/icrl/markov"
)

// tabulate returns the table of the episodic model m for the function who:
// m itself if it is a *markov.Episodic, else markov.TabulateEpisodic(m). A
// nil model (a typed nil included) is an error wrapping ErrNil.
func tabulate(who string, m markov.EpisodicModel) (*markov.Episodic, error) {
	if nilness.Is(m) {
		return nil, fmt.Errorf("%w: %s of a nil game", icrl.ErrNil, who)
	}
	g, err := markov.TabulateEpisodic(m)
	if err != nil {
		return nil, fmt.Errorf("metalearn: %s: %w", who, err)
	}
	return g, nil
}
