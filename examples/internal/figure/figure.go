// Package figure draws the log-log curves with ±1 std bands that the
// example programs write as PNG files (gonum/plot).
package figure

import (
	"image/color"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Series is one curve: Mean[i] ± Std[i] at X[i], and optionally a second,
// dashed curve Dashed[i] (for example the average iterate) in the same
// colour.
type Series struct {
	Name            string
	X, Mean, Std    []float64
	Dashed          []float64
	DashedLegendTag string // legend entry for the dashed curves, if any
}

// palette is a colour-blind-friendly set (Okabe and Ito 2008).
var palette = []color.RGBA{
	{0, 114, 178, 255},   // blue
	{213, 94, 0, 255},    // vermillion
	{0, 158, 115, 255},   // bluish green
	{204, 121, 167, 255}, // reddish purple
	{230, 159, 0, 255},   // orange
	{86, 180, 233, 255},  // sky blue
	{0, 0, 0, 255},       // black
	{240, 228, 66, 255},  // yellow
}

// dashes are the line patterns of the series: series k is drawn in colour
// k mod 8 with pattern ⌊k/8⌋, so no two series share both (solid first).
var dashes = [][]vg.Length{nil, {vg.Points(6), vg.Points(3)}, {vg.Points(2), vg.Points(2)}, {vg.Points(8), vg.Points(2), vg.Points(2), vg.Points(2)}}

// floor keeps log-scale plots finite when a value or a band reaches zero.
const floor = 1e-6

// LogLog draws the series on log-log axes and saves the figure to path
// (the format follows the extension: .png, .svg, .pdf). Each series has its
// own colour and line pattern, its ±1 standard-deviation band shaded in its
// colour (a legend entry says so), and the axes hold every band (on log
// axes down to the smallest positive lower edge) with room above the
// curves for the legend.
func LogLog(path, title, xLabel, yLabel string, series []Series) error {
	return draw2(path, title, xLabel, yLabel, series, true)
}

// Lines draws the series on linear axes (for curves that start at zero,
// such as cumulative regret against time) and saves the figure to path.
func Lines(path, title, xLabel, yLabel string, series []Series) error {
	return draw2(path, title, xLabel, yLabel, series, false)
}

func draw2(path, title, xLabel, yLabel string, series []Series, logAxes bool) error {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font.Size = vg.Points(10)
	p.X.Label.Text = xLabel
	p.Y.Label.Text = yLabel
	if logAxes {
		p.X.Scale = plot.LogScale{}
		p.Y.Scale = plot.LogScale{}
		p.X.Tick.Marker = decadeTicks{}
		p.Y.Tick.Marker = decadeTicks{}
	}
	p.Legend.Top = true
	p.Legend.TextStyle.Font.Size = vg.Points(8)

	ymin, ymax := math.Inf(1), math.Inf(-1)
	banded := false
	for _, s := range series {
		for i := range s.X {
			lo := s.Mean[i] - s.Std[i]
			if logAxes && !(lo > floor) {
				lo = s.Mean[i] / 3
			}
			ymin = math.Min(ymin, math.Max(lo, floor))
			ymax = math.Max(ymax, s.Mean[i]+s.Std[i])
			if s.Dashed != nil {
				ymin = math.Min(ymin, math.Max(s.Dashed[i], floor))
				ymax = math.Max(ymax, s.Dashed[i])
			}
			banded = banded || s.Std[i] > 0
		}
	}
	if logAxes {
		ymin /= 1.5
	} else {
		ymin = math.Min(0, ymin)
	}
	dashedTag := ""
	for k, s := range series {
		col := palette[k%len(palette)]
		band := make(plotter.XYs, 0, 2*len(s.X))
		mean := make(plotter.XYs, len(s.X))
		for i, x := range s.X {
			mean[i] = plotter.XY{X: x, Y: clampLog(s.Mean[i], logAxes)}
			band = append(band, plotter.XY{X: x, Y: clampLog(s.Mean[i]+s.Std[i], logAxes)})
		}
		for i := len(s.X) - 1; i >= 0; i-- {
			band = append(band, plotter.XY{X: s.X[i], Y: math.Max(s.Mean[i]-s.Std[i], ymin)})
		}
		poly, err := plotter.NewPolygon(band)
		if err != nil {
			return err
		}
		poly.Color = color.NRGBA{R: col.R, G: col.G, B: col.B, A: 40} // not premultiplied
		poly.LineStyle.Width = 0
		p.Add(poly)
		line, err := plotter.NewLine(mean)
		if err != nil {
			return err
		}
		line.Color = col
		line.Width = vg.Points(1.5)
		line.Dashes = dashes[(k/len(palette))%len(dashes)]
		p.Add(line)
		p.Legend.Add(s.Name, line)
		if s.Dashed != nil {
			d := make(plotter.XYs, len(s.X))
			for i, x := range s.X {
				d[i] = plotter.XY{X: x, Y: clampLog(s.Dashed[i], logAxes)}
			}
			dl, err := plotter.NewLine(d)
			if err != nil {
				return err
			}
			dl.Color = col
			dl.Width = vg.Points(1)
			dl.Dashes = []vg.Length{vg.Points(1), vg.Points(3)}
			p.Add(dl)
			dashedTag = s.DashedLegendTag
		}
	}
	entries := len(series)
	if dashedTag != "" {
		p.Legend.Add(dashedTag, legendNote{})
		entries++
	}
	if banded {
		p.Legend.Add("shaded: ± 1 standard deviation", legendNote{})
		entries++
	}
	// Room above the curves for the legend: about one line of the plot's
	// height per entry.
	room := 1 + 0.055*float64(entries)
	p.Y.Min = ymin
	if logAxes {
		top := math.Max(ymax, ymin)
		p.Y.Max = top * math.Pow(top/ymin, room-1) * 1.2
	} else {
		p.Y.Max = ymin + (ymax-ymin)*room*1.05
	}
	return p.Save(9*vg.Inch, 5.5*vg.Inch, path)
}

// decadeTicks labels the powers of ten with %g and marks the 2× and 5×
// values between them, labelled too when the range spans less than two
// decades.
type decadeTicks struct{}

// Ticks returns the tick marks for [min, max].
func (decadeTicks) Ticks(min, max float64) []plot.Tick {
	var ticks []plot.Tick
	for e := math.Floor(math.Log10(min)); e <= math.Ceil(math.Log10(max)); e++ {
		p := math.Pow(10, e)
		for _, k := range []float64{1, 2, 5} {
			v := k * p
			if v < min || v > max {
				continue
			}
			t := plot.Tick{Value: v}
			if k == 1 || max/min < 100 { // label every tick on a short range
				t.Label = strconv.FormatFloat(v, 'g', -1, 64)
			}
			ticks = append(ticks, t)
		}
	}
	return ticks
}

// legendNote is an empty legend thumbnail for a text-only legend entry.
type legendNote struct{}

// Thumbnail draws nothing.
func (legendNote) Thumbnail(*draw.Canvas) {}

// clampLog keeps values positive on log axes.
func clampLog(v float64, logAxes bool) float64 {
	if logAxes {
		return math.Max(v, floor)
	}
	return v
}

// SortByX sorts the points of a curve by x, permuting every ys slice the
// same way (for curves whose points were gathered in another order).
func SortByX(x []float64, ys ...[]float64) {
	for i := 1; i < len(x); i++ {
		for j := i; j > 0 && x[j] < x[j-1]; j-- {
			x[j], x[j-1] = x[j-1], x[j]
			for _, y := range ys {
				y[j], y[j-1] = y[j-1], y[j]
			}
		}
	}
}
