package main

import (
	"bytes"
	"errors"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// smallCSV has two collectives of gocoll (Broadcast with its NB form,
// ReduceAll without), and rows the figures leave out: a binding row, an
// images-per-node row and its ratio row, a size-less row. It is a file of
// collbench before the root's columns.
const smallCSV = `op,size_bytes,ranks,iters,warmup,go_avg_us,go_min_us,go_max_us,c_avg_us,c_min_us,c_max_us,ratio_go_c,go_allocs_per_op
Barrier,0,2,10,1,0.5,0.5,0.5,0.4,0.4,0.4,1.25,0
Bcast,8,2,10,1,0.3,0.3,0.3,0.2,0.2,0.2,1.5,0
gocoll.Broadcast,8,2,10,1,0.4,0.4,0.4,0.3,0.3,0.3,1.33,0
gocoll.Broadcast,1024,2,10,1,1.5,1.5,1.5,1.2,1.2,1.2,1.25,0
gocoll.Broadcast,65536,2,10,1,20,20,20,25,25,25,0.8,0
gocoll.BroadcastNB,8,2,10,1,0.5,0.5,0.5,0.6,0.6,0.6,0.83,0
gocoll.BroadcastNB,1024,2,10,1,1.8,1.8,1.8,1.9,1.9,1.9,0.95,0
gocoll.BroadcastNB,65536,2,10,1,22,22,22,21,21,21,1.05,0
gocoll.ReduceAll,8,2,10,1,0.7,0.7,0.7,0.35,0.35,0.35,2,0
gocoll.ReduceAll,1024,2,10,1,2.5,2.5,2.5,2,2,2,1.25,0
gocoll.ReduceAll,65536,2,10,1,40,40,40,50,50,50,0.8,0
gocoll.T2.Broadcast,8,2,10,1,0.1,0.1,0.1,0.3,0.3,0.3,0.33,0
gocoll.T2.Broadcast/gocoll.Broadcast,8,2,0,0,0.1,0,0,0.4,0,0,0.25,0
`

// rootCSV is smallCSV as collbench writes it now: the root's columns at
// the end, filled in the rows of the rooted Broadcast, empty elsewhere.
var rootCSV = func() string {
	var b strings.Builder
	for i, l := range strings.Split(strings.TrimSuffix(smallCSV, "\n"), "\n") {
		switch {
		case i == 0:
			l += ",go_root_us,c_root_us"
		case strings.HasPrefix(l, "gocoll.Broadcast") || strings.HasPrefix(l, "Bcast,"):
			l += ",9,3" // a slow root
		default:
			l += ",,"
		}
		b.WriteString(l + "\n")
	}
	return b.String()
}()

func TestFamilies(t *testing.T) {
	rows, np, err := readCSV(strings.NewReader(smallCSV))
	if err != nil || np != 2 || len(rows) != 13 {
		t.Fatalf("readCSV: %d rows, np %d, %v", len(rows), np, err)
	}
	for _, r := range rows {
		if r.rooted {
			t.Errorf("a file without the root's columns gave a rooted row: %+v", r)
		}
	}
	fs := families(rows)
	if len(fs) != 2 || fs[0].name != "Broadcast" || fs[1].name != "ReduceAll" {
		t.Fatalf("families: %+v", fs)
	}
	b, r := fs[0], fs[1]
	if len(b.gocoll) != 3 || len(b.gocollNB) != 3 || len(b.mpi) != 3 || len(b.mpiNB) != 3 ||
		b.gocollNB[2].Y != 22 || b.mpiNB[0].Y != 0.6 || b.mpi[1].X != 1024 {
		t.Errorf("Broadcast: %+v", b)
	}
	if len(r.gocoll) != 3 || len(r.gocollNB) != 0 || r.mpi[0].Y != 0.35 {
		t.Errorf("ReduceAll: %+v", r)
	}
	if rs := ratios(r.gocoll, r.mpi); len(rs) != 3 || rs[0].Y != 2 || rs[2].Y != 0.8 {
		t.Errorf("ratios: %v", rs)
	}
}

// TestFamiliesRoot reads a file with the root's columns: the rooted
// collective gets a second family, of the root's figures, right after it.
func TestFamiliesRoot(t *testing.T) {
	rows, _, err := readCSV(strings.NewReader(rootCSV))
	if err != nil || len(rows) != 13 {
		t.Fatalf("readCSV: %d rows, %v", len(rows), err)
	}
	fs := families(rows)
	if len(fs) != 3 || fs[0].name != "Broadcast" || fs[1].name != "Broadcast"+rootSuffix || fs[2].name != "ReduceAll" {
		t.Fatalf("families: %+v", fs)
	}
	b, root := fs[0], fs[1]
	if len(root.gocoll) != 3 || len(root.gocollNB) != 3 || len(root.mpi) != 3 || len(root.mpiNB) != 3 ||
		root.gocoll[0].Y != 9 || root.mpiNB[2].Y != 3 || root.mpi[1].X != 1024 {
		t.Errorf("Broadcast at the root: %+v", root)
	}
	if b.gocoll[0].Y != 0.4 || b.mpi[0].Y != 0.3 {
		t.Errorf("Broadcast: %+v", b)
	}
}

// TestReadCSVOfTheREADME reads the README's figure data, a file of an
// earlier collbench.
func TestReadCSVOfTheREADME(t *testing.T) {
	f, err := os.Open("../../docs/collbench-np2.csv")
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	rows, np, err := readCSV(f)
	if err != nil || np != 2 || len(families(rows)) == 0 {
		t.Errorf("docs/collbench-np2.csv: %d rows, np %d, %v", len(rows), np, err)
	}
}

// colorCount counts the pixels within a small distance of c (lines are
// anti-aliased) and the pixels that are not white.
func colorCount(img image.Image, c color.RGBA) (near, ink int) {
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			r, g, bl = r>>8, g>>8, bl>>8
			if r < 250 || g < 250 || bl < 250 {
				ink++
			}
			d := func(a uint32, b uint8) int { return max(int(a)-int(b), int(b)-int(a)) }
			if d(r, c.R)+d(g, c.G)+d(bl, c.B) < 40 {
				near++
			}
		}
	}
	return near, ink
}

// TestPlotPNG renders both figures from a small CSV file (as --from-csv
// does) and checks that each decodes as a PNG of the expected size whose
// lines are drawn: pixels of each series' colour, and ink beyond the axes.
// With the root's columns, Broadcast has a third panel, of its root.
func TestPlotPNG(t *testing.T) {
	t.Run("without root", func(t *testing.T) { testPlotPNG(t, smallCSV, 2) })
	t.Run("with root", func(t *testing.T) { testPlotPNG(t, rootCSV, 3) })
}

func testPlotPNG(t *testing.T, data string, panels int) {
	dir := t.TempDir()
	csvName, pngName := filepath.Join(dir, "run.csv"), filepath.Join(dir, "fig.png")
	if err := os.WriteFile(csvName, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := plotFromCSV(pngName, csvName); err != nil {
		t.Fatal(err)
	}
	lat, rat := plotFiles(pngName)
	// The panels side by side under the title band.
	w, h := float64(panels)*panelW*plotDPI, (panelH+titleH)*plotDPI
	wantW, wantH := int(w+0.5), int(h+0.5)
	for _, c := range []struct {
		file   string
		colors []color.RGBA
	}{{lat, []color.RGBA{gocollColor, mpiColor}}, {rat, []color.RGBA{gocollColor, oneColor}}} {
		data, err := os.ReadFile(c.file)
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		if b := img.Bounds(); b.Dx() != wantW || b.Dy() != wantH {
			t.Errorf("%s: %dx%d pixels, want %dx%d", c.file, b.Dx(), b.Dy(), wantW, wantH)
		}
		for _, col := range c.colors {
			near, ink := colorCount(img, col)
			if near < 150 {
				t.Errorf("%s: %d pixels of colour %v: its series is not drawn", c.file, near, col)
			}
			if total := wantW * wantH; ink < total/50 {
				t.Errorf("%s: %d of %d pixels not white: blank", c.file, ink, total)
			}
		}
	}
}

func TestPlotErrors(t *testing.T) {
	dir := t.TempDir()
	rows, np, _ := readCSV(strings.NewReader(smallCSV))
	var only []row
	for _, r := range rows {
		if !strings.HasPrefix(r.op, "gocoll.") || strings.Contains(r.op, "T2") {
			only = append(only, r)
		}
	}
	if err := writePlots(filepath.Join(dir, "x.png"), only, np); !errors.Is(err, errNoPlotRows) {
		t.Errorf("no gocoll rows: %v, want errNoPlotRows", err)
	}
	if _, _, err := readCSV(strings.NewReader("a,b\n1,2\n")); err == nil {
		t.Error("a CSV file of another header was read")
	}
	bad := strings.Replace(smallCSV, "gocoll.Broadcast,8,2,10,1,0.4", "gocoll.Broadcast,8,2,10,1,x", 1)
	if _, _, err := readCSV(strings.NewReader(bad)); err == nil || !strings.Contains(err.Error(), "go_avg_us") {
		t.Errorf("bad number: %v", err)
	}
	if err := plotFromCSV(filepath.Join(dir, "y.png"), filepath.Join(dir, "missing.csv")); err == nil {
		t.Error("a missing CSV file was plotted")
	}
	if err := writePlots(filepath.Join(dir, "no", "such", "dir.png"), rows, np); err == nil {
		t.Error("a figure was written into a missing directory")
	}
}
