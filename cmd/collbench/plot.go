package main

import (
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/gocoll/gocoll/cmd/internal/benchcsv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// The figures of --plot: one panel per collective measured in the gocoll.*
// rows. The latency figure draws, against the message size on log-log axes,
// gocoll's blocking collective and its NB form (initiate and wait) beside
// the native MPI collective and its nonblocking form, as the rows measured
// them (the "Go" and "C" sides of each row). The ratio figure draws gocoll
// over native MPI, blocking and NB, with the line at 1. A rooted collective
// has a second panel beside its own, drawn the same way from the root's
// (rank 0's) figures: the average over ranks hides a slow root.

// Panel and figure geometry, in inches, and the resolution of the PNG.
const (
	panelW, panelH = 3.4, 2.7
	titleH         = 0.45
	plotDPI        = 100
	maxCols        = 4
)

// The series' colours: the test finds them in the image.
var (
	gocollColor = color.RGBA{R: 0x1f, G: 0x5f, B: 0xbf, A: 0xff}
	mpiColor    = color.RGBA{R: 0xd9, G: 0x5f, B: 0x02, A: 0xff}
	oneColor    = color.RGBA{R: 0x60, G: 0x60, B: 0x60, A: 0xff}
)

// family is one collective's rows: gocoll.X (blocking) and gocoll.XNB,
// their averages over ranks or, in a root family, the root's figures.
type family struct {
	name                         string
	gocoll, gocollNB, mpi, mpiNB plotter.XYs
}

// rootSuffix ends the name of a root family, which is its panel's title.
const rootSuffix = ", at the root (rank 0)"

// families groups the gocoll.* rows of one image per process by
// collective, in the order they come, each rooted collective followed by
// its root family; rows without a size or a time are left out (a log axis
// has no place for them).
func families(rows []row) []*family {
	var out []*family
	byName := map[string]*family{}
	get := func(name string) *family {
		f := byName[name]
		if f == nil {
			f = &family{name: name}
			byName[name] = f
			out = append(out, f)
		}
		return f
	}
	for _, r := range rows {
		name, ok := strings.CutPrefix(r.op, gocollPrefix)
		if !ok || strings.Contains(name, ".") || strings.Contains(name, "/") || r.size <= 0 {
			continue // not gocoll's, an images-per-node row, or a ratio row
		}
		base, nb := strings.CutSuffix(name, "NB")
		get(base).add(nb, float64(r.size), r.goAvg, r.cAvg)
		if r.rooted {
			get(base+rootSuffix).add(nb, float64(r.size), r.goRoot, r.cRoot)
		}
	}
	return out
}

// add puts one row's Go and C latencies at size x, blocking or NB.
func (f *family) add(nb bool, x, goUs, cUs float64) {
	g, c := &f.gocoll, &f.mpi
	if nb {
		g, c = &f.gocollNB, &f.mpiNB
	}
	if goUs > 0 {
		*g = append(*g, plotter.XY{X: x, Y: goUs})
	}
	if cUs > 0 {
		*c = append(*c, plotter.XY{X: x, Y: cUs})
	}
}

const gocollPrefix = "gocoll."

// ratios is a over b where both have a point at the same size.
func ratios(a, b plotter.XYs) plotter.XYs {
	var out plotter.XYs
	for _, p := range a {
		for _, q := range b {
			if p.X == q.X && q.Y > 0 {
				out = append(out, plotter.XY{X: p.X, Y: p.Y / q.Y})
			}
		}
	}
	return out
}

// series is one line of a panel.
type series struct {
	label  string
	xys    plotter.XYs
	color  color.Color
	dashed bool
}

// panel makes one collective's plot: log-log, sizes labelled as collbench
// prints them.
func panel(title, ylabel string, ss []series, yTicks plot.Ticker) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "size (B)"
	p.Y.Label.Text = ylabel
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = sizeTicks{}, yTicks
	p.Legend.TextStyle.Font.Size = vg.Points(7)
	p.Add(plotter.NewGrid())
	for _, s := range ss {
		if len(s.xys) == 0 {
			continue
		}
		l, pts, err := plotter.NewLinePoints(s.xys)
		if err != nil {
			return nil, err
		}
		l.Color, pts.Color = s.color, s.color
		l.Width = vg.Points(1.5)
		if s.dashed {
			l.Dashes = []vg.Length{vg.Points(4), vg.Points(2)}
			pts.Shape = draw.BoxGlyph{}
		} else {
			pts.Shape = draw.CircleGlyph{}
		}
		pts.Radius = vg.Points(2)
		p.Add(l, pts)
		p.Legend.Add(s.label, l, pts)
	}
	return p, nil
}

// latencyFigure and ratioFigure draw the two figures of the families.
func latencyFigure(fs []*family, np int, w io.Writer) error {
	ps := make([]*plot.Plot, len(fs))
	for i, f := range fs {
		var err error
		ps[i], err = panel(f.name, "latency (µs)", []series{
			{"gocoll", f.gocoll, gocollColor, false},
			{"gocoll NB", f.gocollNB, gocollColor, true},
			{"MPI", f.mpi, mpiColor, false},
			{"MPI nonblocking", f.mpiNB, mpiColor, true},
		}, plot.LogTicks{Prec: -1})
		if err != nil {
			return err
		}
		// Latency grows with size: the lower right corner is free.
		ps[i].Legend.Top, ps[i].Legend.Left = false, false
	}
	return renderTiles(ps, fmt.Sprintf("gocoll against native MPI, np %d: average latency (µs) by message size", np), w)
}

func ratioFigure(fs []*family, np int, w io.Writer) error {
	ps := make([]*plot.Plot, len(fs))
	for i, f := range fs {
		rs := []series{
			{"gocoll / MPI", ratios(f.gocoll, f.mpi), gocollColor, false},
			{"gocoll NB / MPI nonblocking", ratios(f.gocollNB, f.mpiNB), gocollColor, true},
		}
		var err error
		if ps[i], err = panel(f.name, "gocoll / MPI", rs, pow2Ticks{}); err != nil {
			return err
		}
		// The line at 1 spans the sizes and stays in view.
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, s := range rs {
			for _, p := range s.xys {
				lo, hi = min(lo, p.X), max(hi, p.X)
			}
		}
		if lo <= hi {
			one, err := plotter.NewLine(plotter.XYs{{X: lo, Y: 1}, {X: hi, Y: 1}})
			if err != nil {
				return err
			}
			one.Color, one.Width = oneColor, vg.Points(1)
			ps[i].Add(one)
			ps[i].Legend.Add("1.0 (as fast as MPI)", one)
			ps[i].Y.Min, ps[i].Y.Max = min(ps[i].Y.Min, 0.9), max(ps[i].Y.Max, 1.1)
		}
		// Room above the lines for the legend, top left.
		ps[i].Y.Max *= 2.5
		ps[i].Legend.Top, ps[i].Legend.Left = true, true
	}
	return renderTiles(ps, fmt.Sprintf("gocoll over native MPI, np %d: ratio of average latencies (< 1: gocoll is faster)", np), w)
}

// renderTiles draws the panels in rows of up to maxCols under a title and
// writes the PNG.
func renderTiles(ps []*plot.Plot, title string, w io.Writer) error {
	cols := min(len(ps), maxCols)
	rows := (len(ps) + cols - 1) / cols
	width, height := vg.Length(panelW*float64(cols))*vg.Inch, vg.Length(panelH*float64(rows)+titleH)*vg.Inch
	img := vgimg.NewWith(vgimg.UseWH(width, height), vgimg.UseDPI(plotDPI))
	dc := draw.New(img)
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())

	font := plot.DefaultFont
	font.Size = vg.Points(13)
	dc.FillText(text.Style{Color: color.Black, Font: font, Handler: plot.DefaultTextHandler, XAlign: text.XCenter, YAlign: text.YTop},
		vg.Point{X: width / 2, Y: height - vg.Inch/8}, title)

	grid := make([][]*plot.Plot, rows)
	for r := range grid {
		grid[r] = make([]*plot.Plot, cols)
		for c := range cols {
			if i := r*cols + c; i < len(ps) {
				grid[r][c] = ps[i]
			}
		}
	}
	body := draw.Crop(dc, 0, 0, 0, -vg.Length(titleH)*vg.Inch)
	tiles := draw.Tiles{Rows: rows, Cols: cols, PadX: vg.Inch / 8, PadY: vg.Inch / 8,
		PadTop: vg.Inch / 16, PadBottom: vg.Inch / 16, PadLeft: vg.Inch / 16, PadRight: vg.Inch / 8}
	canvases := plot.Align(grid, tiles, body)
	for r := range grid {
		for c, p := range grid[r] {
			if p != nil {
				p.Draw(canvases[r][c])
			}
		}
	}
	_, err := vgimg.PngCanvas{Canvas: img}.WriteTo(w)
	return err
}

// sizeTicks labels powers of 16 bytes as collbench prints sizes (16, 256,
// 4K, 64K, 1M) and marks the other powers of 2.
type sizeTicks struct{}

func (sizeTicks) Ticks(lo, hi float64) []plot.Tick {
	var ts []plot.Tick
	for k := 0; k < 63 && float64(uint64(1)<<k) <= hi; k++ {
		v := float64(uint64(1) << k)
		if v < lo {
			continue
		}
		t := plot.Tick{Value: v}
		if k%4 == 0 {
			t.Label = formatSize(1 << k)
		}
		ts = append(ts, t)
	}
	return ts
}

// pow2Ticks labels the powers of 2 of a ratio axis (0.5, 1, 2, 4 ...), with
// marks between them at tenths of a power; at least one label shows.
type pow2Ticks struct{}

func (pow2Ticks) Ticks(lo, hi float64) []plot.Tick {
	var ts []plot.Tick
	for k := math.Floor(math.Log2(lo)); k <= math.Ceil(math.Log2(hi)); k++ {
		v := math.Exp2(k)
		if v >= lo && v <= hi {
			ts = append(ts, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'g', -1, 64)})
		}
		for i := 1; i < 4; i++ {
			if m := v * (1 + float64(i)/4); m >= lo && m <= hi {
				ts = append(ts, plot.Tick{Value: m})
			}
		}
	}
	return ts
}

// plotFiles are the two files --plot NAME.png writes: NAME.png and
// NAME-ratios.png.
func plotFiles(name string) (latency, ratio string) {
	return name, strings.TrimSuffix(name, ".png") + "-ratios.png"
}

// errNoPlotRows: nothing to plot.
var errNoPlotRows = errors.New("--plot: no gocoll.* rows with sizes to plot (select some with --ops)")

// writePlots writes both figures of rows measured on np ranks to the files
// named after name.
func writePlots(name string, rows []row, np int) error {
	fs := families(rows)
	if len(fs) == 0 {
		return errNoPlotRows
	}
	lat, rat := plotFiles(name)
	for _, fig := range []struct {
		file string
		draw func([]*family, int, io.Writer) error
	}{{lat, latencyFigure}, {rat, ratioFigure}} {
		if err := writeFile(fig.file, func(w io.Writer) error { return fig.draw(fs, np, w) }); err != nil {
			return fmt.Errorf("--plot: %w", err)
		}
	}
	return nil
}

// writeFile creates name and writes it with write, reporting a failed close.
func writeFile(name string, write func(io.Writer) error) (err error) {
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	return write(f)
}

// readCSV reads rows written by --csv (for --from-csv) and the rank count
// they were measured on.
func readCSV(r io.Reader) (rows []row, np int, err error) {
	recs, err := benchcsv.Read(r)
	if err != nil {
		return nil, 0, err
	}
	for _, c := range recs {
		rows = append(rows, row{op: c.Op, size: c.Size, sized: c.Size > 0, ranks: c.Ranks,
			goAvg: c.GoAvg, cAvg: c.CAvg, rooted: c.Rooted, goRoot: c.GoRoot, cRoot: c.CRoot})
		np = max(np, c.Ranks)
	}
	if np == 0 && len(rows) > 0 {
		return nil, 0, errors.New("not a collbench CSV file (no column ranks)")
	}
	return rows, np, nil
}

// plotFromCSV is --plot with --from-csv: the figures of an earlier run's
// CSV file, without MPI.
func plotFromCSV(name, csvName string) error {
	f, err := os.Open(csvName)
	if err != nil {
		return fmt.Errorf("--from-csv: %w", err)
	}
	defer f.Close()
	rows, np, err := readCSV(f)
	if err != nil {
		return fmt.Errorf("--from-csv %s: %w", csvName, err)
	}
	return writePlots(name, rows, np)
}
