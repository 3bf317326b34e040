package alg

import (
	"errors"
	"testing"
)

// FuzzLayout checks the block-cyclic arithmetic of Dist on any layout:
// an invalid one is ErrLayout; on a valid one every element has exactly
// one place (no two share an image and local index), each image's runs
// list exactly its elements in order with consecutive local indices,
// LocalLen is the end of the last run, rows counts the rows the runs use,
// and segEnd ends a run of one block.
func FuzzLayout(f *testing.F) {
	for _, s := range [][4]int{{1, 0, 4, 10}, {0, 2, 3, 7}, {3, 5, 4, 40}, {2, 0, 1, 1}, {5, 17, 3, 9}, {-1, 0, 2, 3}, {0, 3, 3, 1}, {1, -1, 2, 2}, {40, 1, 16, 33}} {
		f.Add(s[0], s[1], s[2], s[3])
	}
	f.Fuzz(func(t *testing.T, blockSize, offset, P, count int) {
		// Bounded so that one input stays quick; the arithmetic has no
		// size-dependent branch above these.
		if P < 1 || P > 64 || count < 1 || count > 2000 || blockSize > 300 || blockSize < -5 || offset > 5000 || offset < -5 {
			t.Skip()
		}
		d := Dist{Layout: Layout{BlockSize: blockSize, Offset: offset}, P: P, Count: count}
		if err := d.Check("src"); err != nil {
			if !errors.Is(err, ErrLayout) {
				t.Fatalf("%+v: %v is not ErrLayout", d, err)
			}
			if blockSize > 0 && offset >= 0 || blockSize == 0 && offset >= 0 && offset < P {
				t.Fatalf("%+v: valid layout refused: %v", d, err)
			}
			return
		}
		if blockSize < 0 || offset < 0 || blockSize == 0 && offset >= P {
			t.Fatalf("%+v: invalid layout accepted", d)
		}
		type spot struct{ img, local int }
		owner := map[spot]int{}
		perImage := make([][]int, P) // elements by image, in order
		for j := range count {
			img, local := d.place(j)
			if img < 0 || img >= P || local < 0 || local >= d.LocalLen(img) {
				t.Fatalf("%+v: element %d at image %d local %d, localLen %d", d, j, img, local, d.LocalLen(img))
			}
			if k, ok := owner[spot{img, local}]; ok {
				t.Fatalf("%+v: elements %d and %d both at image %d local %d", d, k, j, img, local)
			}
			owner[spot{img, local}] = j
			perImage[img] = append(perImage[img], j)
			end := d.segEnd(j)
			if end <= j || end > count {
				t.Fatalf("%+v: segEnd(%d) = %d", d, j, end)
			}
			if k := end - 1; k > j {
				if ki, kl := d.place(k); ki != img || kl != local+k-j {
					t.Fatalf("%+v: segEnd(%d) = %d, but element %d is at image %d local %d", d, j, end, k, ki, kl)
				}
			}
		}
		rows := d.rows()
		for p := range P {
			var listed []int
			end, lastRow := 0, -1
			for _, r := range d.Runs(p) {
				if r.N <= 0 || r.row <= lastRow || r.row >= rows {
					t.Fatalf("%+v image %d: run %+v after row %d, %d rows", d, p, r, lastRow, rows)
				}
				if len(listed) > 0 && r.Local != end {
					t.Fatalf("%+v image %d: run %+v starts at local %d, previous ended at %d", d, p, r, r.Local, end)
				}
				for i := range r.N {
					if img, local := d.place(r.j + i); img != p || local != r.Local+i {
						t.Fatalf("%+v image %d: run %+v element %d is at image %d local %d", d, p, r, r.j+i, img, local)
					}
					listed = append(listed, r.j+i)
				}
				end, lastRow = r.Local+r.N, r.row
			}
			if len(listed) != len(perImage[p]) {
				t.Fatalf("%+v image %d: runs list %d elements, %d live there", d, p, len(listed), len(perImage[p]))
			}
			for i := range listed {
				if listed[i] != perImage[p][i] {
					t.Fatalf("%+v image %d: runs list %v, elements %v", d, p, listed, perImage[p])
				}
			}
			if got := d.LocalLen(p); got != end {
				t.Fatalf("%+v image %d: localLen %d, runs end at %d", d, p, got, end)
			}
		}
	})
}
