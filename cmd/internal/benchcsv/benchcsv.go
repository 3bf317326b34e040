// Package benchcsv is the format of collbench's CSV files: collbench writes
// them (--csv) and draws from them (--from-csv), perfcompare compares and
// renders them.
package benchcsv

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
)

// Header names the columns, in the order collbench writes them. New columns
// go at the end, so that scripts that index columns keep working; the root's
// columns are empty in the rows of operations without a root.
var Header = []string{
	"op", "size_bytes", "ranks", "iters", "warmup",
	"go_avg_us", "go_min_us", "go_max_us", "c_avg_us", "c_min_us", "c_max_us",
	"ratio_go_c", "go_allocs_per_op",
	"go_root_us", "c_root_us",
}

// Row is what the readers need of a row. A figure whose column is absent or
// empty is 0.
type Row struct {
	Op            string
	Size, Ranks   int
	GoAvg, CAvg   float64
	Allocs        float64
	GoRoot, CRoot float64
	Rooted        bool // the row has the root's figures
}

// required are the columns without which a file is not collbench's.
var required = []string{"op", "size_bytes", "go_avg_us", "c_avg_us"}

// Read reads a file. It finds the columns by name, so that the files of
// other collbench versions (without the root's columns, or with columns
// added later) read too.
func Read(r io.Reader) ([]Row, error) {
	recs, err := csv.NewReader(r).ReadAll()
	if err != nil {
		return nil, err
	}
	col := map[string]int{}
	if len(recs) > 0 {
		for i, name := range recs[0] {
			col[name] = i
		}
	}
	for _, name := range required {
		if _, ok := col[name]; !ok {
			return nil, fmt.Errorf("not a collbench CSV file (no column %s)", name)
		}
	}
	rows := make([]Row, 0, max(0, len(recs)-1))
	for i, rec := range recs[1:] {
		has := func(name string) bool {
			c, ok := col[name]
			return ok && rec[c] != ""
		}
		num := func(name string) float64 {
			if !has(name) {
				return 0
			}
			v, perr := strconv.ParseFloat(rec[col[name]], 64)
			if perr != nil && err == nil {
				err = fmt.Errorf("line %d, column %s: %w", i+2, name, perr)
			}
			return v
		}
		rows = append(rows, Row{
			Op: rec[col["op"]], Size: int(num("size_bytes")), Ranks: int(num("ranks")),
			GoAvg: num("go_avg_us"), CAvg: num("c_avg_us"), Allocs: num("go_allocs_per_op"),
			GoRoot: num("go_root_us"), CRoot: num("c_root_us"), Rooted: has("go_root_us"),
		})
		if err != nil {
			return nil, err
		}
	}
	return rows, nil
}
