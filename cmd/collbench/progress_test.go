package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestStatusLine(t *testing.T) {
	var b bytes.Buffer
	s := newStatus(&b, 3)
	s.next("gocoll.Broadcast", 1024, true)
	if got := b.String(); got != "\rcollbench: gocoll.Broadcast 1KB (row 1 of 3, 3 left)" {
		t.Errorf("first line %q", got)
	}
	b.Reset()
	first := len("collbench: gocoll.Broadcast 1KB (row 1 of 3, 3 left)")
	s.t0 = s.t0.Add(-time.Hour) // an hour for the first row: two more left
	s.next("Barrier", 0, false)
	got := b.String()
	if !strings.HasPrefix(got, "\rcollbench: Barrier (row 2 of 3, 2 left, about 2h0m") || len(got) < 1+first {
		t.Errorf("second line %q does not blank the first (%d long)", got, first)
	}
	b.Reset()
	width := s.width
	s.end()
	if got, want := b.String(), "\r"+strings.Repeat(" ", width)+"\r"; got != want {
		t.Errorf("end wrote %q, want %q", got, want)
	}
	var none *status
	none.next("x", 1, true) // nil: no output, no panic
	none.end()
	if newStatus(nil, 3) != nil || newStatus(&b, 0) != nil {
		t.Error("a status line without a writer or rows")
	}
}

func TestStatusWriter(t *testing.T) {
	if statusWriter(false, &bytes.Buffer{}) != nil {
		t.Error("status line on a buffer")
	}
	if statusWriter(true, os.Stderr) != nil {
		t.Error("status line with --quiet")
	}
	f, err := os.Create(filepath.Join(t.TempDir(), "f"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if isTerminal(f) {
		t.Error("a file is a terminal")
	}
	pty, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skip("no pseudo-terminal:", err)
	}
	defer pty.Close()
	if !isTerminal(pty) {
		t.Error("a pseudo-terminal is not a terminal")
	}
	if statusWriter(false, pty) == nil {
		t.Error("no status line on a terminal")
	}
}
