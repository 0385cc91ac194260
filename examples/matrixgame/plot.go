package main

import (
	"github.com/icrl-go/icrl/examples/internal/figure"
)

// writePlot draws the last-iterate duality gap of every curve against T on
// log-log axes, with a ±1 std band, and the average-iterate gap dashed.
func writePlot(path, title string, curves []curve) error {
	series := make([]figure.Series, len(curves))
	for k, c := range curves {
		x := make([]float64, len(c.rounds))
		for i, r := range c.rounds {
			x[i] = float64(r)
		}
		series[k] = figure.Series{
			Name: c.name + " (last)", X: x, Mean: c.lastMean, Std: c.lastStd,
			Dashed: c.averageMean, DashedLegendTag: "dashed: average iterate",
		}
	}
	return figure.LogLog(path, title, "rounds T", "duality gap", series)
}
