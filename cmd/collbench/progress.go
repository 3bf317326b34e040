package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// status is the progress line collbench keeps on stderr while it measures
// (rank 0, when stderr is a terminal, unless --quiet): the row being
// measured, how many are left and a rough estimate of the time left, redrawn
// in place with a carriage return and blanked at the end. A nil *status
// draws nothing.
type status struct {
	w           io.Writer
	total, done int
	t0          time.Time
	width       int // of the line on screen, to blank it
}

// newStatus is the status line of total rows on w, nil when w is nil.
func newStatus(w io.Writer, total int) *status {
	if w == nil || total == 0 {
		return nil
	}
	return &status{w: w, total: total, t0: time.Now()}
}

// next shows the row about to be measured.
func (s *status) next(op string, size int, sized bool) {
	if s == nil {
		return
	}
	what := op
	if sized {
		what += " " + formatSize(size) + "B"
	}
	line := fmt.Sprintf("collbench: %s (row %d of %d, %d left", what, s.done+1, s.total, s.total-s.done)
	if s.done > 0 {
		left := time.Since(s.t0) / time.Duration(s.done) * time.Duration(s.total-s.done)
		if left >= time.Second {
			line += fmt.Sprintf(", about %s", left.Round(time.Second))
		}
	}
	line += ")"
	s.draw(line)
	s.done++
}

// end blanks the line.
func (s *status) end() {
	if s == nil {
		return
	}
	s.draw("")
}

// draw replaces the line on screen with line, blanking what it leaves of
// the longer one before; an empty line leaves the cursor at the start.
func (s *status) draw(line string) {
	pad := strings.Repeat(" ", max(0, s.width-len(line)))
	if line == "" {
		fmt.Fprintf(s.w, "\r%s\r", pad)
	} else {
		fmt.Fprintf(s.w, "\r%s%s", line, pad)
	}
	s.width = len(line)
}

// statusWriter is where the status line goes: stderr when it is a
// terminal (or, under mpirun, which hands ranks a pipe for stderr, when the
// launcher's is), nil otherwise or with --quiet.
func statusWriter(quiet bool, stderr io.Writer) io.Writer {
	f, ok := stderr.(*os.File)
	if quiet || !ok {
		return nil
	}
	if isTerminal(f) {
		return stderr
	}
	if launched() && parentStderrIsTerminal() {
		return stderr
	}
	return nil
}

// launched reports whether an MPI launcher started this process.
func launched() bool {
	for _, v := range []string{"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"} {
		if _, ok := os.LookupEnv(v); ok {
			return true
		}
	}
	return false
}
