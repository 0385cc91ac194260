package figure

import (
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Points is one group of a scatter plot.
type Points struct {
	Name string
	X, Y []float64
}

// Scatter draws the groups as points on fixed axes [xmin, xmax] ×
// [ymin, ymax] (one colour and glyph per group) and saves the figure to
// path.
func Scatter(path, title, xLabel, yLabel string, xmin, xmax, ymin, ymax float64, groups []Points) error {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font.Size = vg.Points(10)
	p.X.Label.Text = xLabel
	p.Y.Label.Text = yLabel
	p.Legend.Left = true // the points of pure equilibria sit in the corners
	p.Legend.XOffs = vg.Points(30)
	p.Legend.YOffs = vg.Points(30)
	p.Legend.TextStyle.Font.Size = vg.Points(8)
	glyphs := []draw.GlyphDrawer{draw.CircleGlyph{}, draw.TriangleGlyph{}, draw.SquareGlyph{}, draw.PlusGlyph{}, draw.CrossGlyph{}, draw.RingGlyph{}}
	for k, g := range groups {
		xy := make(plotter.XYs, len(g.X))
		for i := range g.X {
			xy[i] = plotter.XY{X: g.X[i], Y: g.Y[i]}
		}
		s, err := plotter.NewScatter(xy)
		if err != nil {
			return err
		}
		s.GlyphStyle.Color = palette[k%len(palette)]
		s.GlyphStyle.Shape = glyphs[k%len(glyphs)]
		s.GlyphStyle.Radius = vg.Points(3)
		p.Add(s)
		p.Legend.Add(g.Name, s)
	}
	p.X.Min, p.X.Max = xmin, xmax
	p.Y.Min, p.Y.Max = ymin, ymax
	p.Add(plotter.NewGrid())
	return p.Save(6*vg.Inch, 6*vg.Inch, path)
}
