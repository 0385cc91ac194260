package main

import (
	"image/color"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

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

// gapFloor keeps log-scale plots finite when a gap or a band reaches zero.
const gapFloor = 1e-6

// writePlot draws the last-iterate duality gap of every curve against T on
// log-log axes, with a ±1 std band, and the average-iterate gap dashed.
func writePlot(path, title string, curves []curve) error {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font.Size = vg.Points(10)
	p.X.Label.Text = "rounds T"
	p.Y.Label.Text = "duality gap"
	p.X.Scale = plot.LogScale{}
	p.Y.Scale = plot.LogScale{}
	p.X.Tick.Marker = decadeTicks{}
	p.Y.Tick.Marker = decadeTicks{}
	p.Legend.Top = true
	p.Legend.Left = false
	p.Legend.TextStyle.Font.Size = vg.Points(8)

	// The y axis starts a factor 3 below the smallest mean gap; a band whose
	// lower edge (mean − std) falls below it runs off the bottom of the plot.
	ymin := math.Inf(1)
	for _, c := range curves {
		for i := range c.rounds {
			ymin = math.Min(ymin, math.Max(c.lastMean[i], gapFloor))
			ymin = math.Min(ymin, math.Max(c.averageMean[i], gapFloor))
		}
	}
	ymin /= 3

	for k, c := range curves {
		col := palette[k%len(palette)]
		band := make(plotter.XYs, 0, 2*len(c.rounds))
		last := make(plotter.XYs, len(c.rounds))
		avg := make(plotter.XYs, len(c.rounds))
		for i, r := range c.rounds {
			x := float64(r)
			last[i] = plotter.XY{X: x, Y: math.Max(c.lastMean[i], gapFloor)}
			avg[i] = plotter.XY{X: x, Y: math.Max(c.averageMean[i], gapFloor)}
			band = append(band, plotter.XY{X: x, Y: math.Max(c.lastMean[i]+c.lastStd[i], gapFloor)})
		}
		for i := len(c.rounds) - 1; i >= 0; i-- {
			band = append(band, plotter.XY{X: float64(c.rounds[i]), Y: math.Max(c.lastMean[i]-c.lastStd[i], ymin)})
		}
		poly, err := plotter.NewPolygon(band)
		if err != nil {
			return err
		}
		poly.Color = color.NRGBA{R: col.R, G: col.G, B: col.B, A: 40} // not premultiplied
		poly.LineStyle.Width = 0
		p.Add(poly)

		line, err := plotter.NewLine(last)
		if err != nil {
			return err
		}
		line.Color = col
		line.Width = vg.Points(1.5)
		p.Add(line)
		p.Legend.Add(c.name+" (last)", line)

		dashed, err := plotter.NewLine(avg)
		if err != nil {
			return err
		}
		dashed.Color = col
		dashed.Width = vg.Points(1)
		dashed.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		p.Add(dashed)
	}
	p.Legend.Add("dashed: average iterate", legendNote{})
	p.Y.Min = ymin
	return p.Save(9*vg.Inch, 5.5*vg.Inch, path)
}

// decadeTicks labels the powers of ten with %g and marks the 2× and 5×
// values between them without labels.
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
			if k == 1 {
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
