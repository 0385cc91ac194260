package sweep

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/icrl-go/icrl/transformer"
)

// ModelSize is one architecture of a sweep over model sizes.
type ModelSize struct{ Layers, Width, Heads int }

// String returns "L×W hH".
func (m ModelSize) String() string { return fmt.Sprintf("%d×%d h%d", m.Layers, m.Width, m.Heads) }

// Config returns the transformer configuration of the size, with the
// feed-forward width 4·Width (the read-in and read-out come from the
// encoder).
func (m ModelSize) Config() transformer.Config {
	return transformer.Config{Layers: m.Layers, Width: m.Width, Heads: m.Heads, FeedForward: 4 * m.Width}
}

// ParseSizes parses "LxW" or "LxWhH" items (heads default to width/16, at
// least 1).
func ParseSizes(s string) ([]ModelSize, error) {
	var out []ModelSize
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		lw, h, hasH := strings.Cut(f, "h")
		ls, ws, ok := strings.Cut(lw, "x")
		l, err1 := strconv.Atoi(ls)
		w, err2 := strconv.Atoi(ws)
		if !ok || err1 != nil || err2 != nil || l < 1 || w < 1 {
			return nil, fmt.Errorf("bad model size %q (want LAYERSxWIDTH or LAYERSxWIDTHhHEADS, e.g. 2x64h4)", f)
		}
		heads := max(w/16, 1)
		if hasH {
			if heads, err1 = strconv.Atoi(h); err1 != nil || heads < 1 || w%heads != 0 {
				return nil, fmt.Errorf("bad model size %q: the heads must divide the width", f)
			}
		}
		out = append(out, ModelSize{l, w, heads})
	}
	return out, nil
}

// ParseInts parses a comma-separated list of positive integers (a grid of
// lengths, data sizes or seeds).
func ParseInts(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || v < 1 {
			return nil, fmt.Errorf("bad positive integer %q in %q", f, s)
		}
		out = append(out, v)
	}
	return out, nil
}
