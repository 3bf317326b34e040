package mpi

import (
	"errors"
	"fmt"
	"math"
	"os"
	"syscall"
	"testing"
)

// TestMain runs every test inside one MPI session. Without mpirun the process
// is an MPI singleton (np 1) and tests that need more ranks skip. The misuse
// checks before Init and after Finalize run here, since each happens once.
func TestMain(m *testing.M) {
	if err := lifecycleBefore(); err != nil {
		fmt.Fprintln(os.Stderr, "FAIL: before Init:", err)
		os.Exit(1)
	}
	if _, err := Init(ThreadMultiple); err != nil {
		fmt.Fprintln(os.Stderr, "FAIL: Init:", err)
		os.Exit(1)
	}
	code := m.Run()
	if err := Finalize(); err != nil {
		fmt.Fprintln(os.Stderr, "FAIL: Finalize:", err)
		code = 1
	}
	if err := lifecycleAfter(); err != nil {
		fmt.Fprintln(os.Stderr, "FAIL: after Finalize:", err)
		code = 1
	}
	os.Exit(code)
}

// expect reports an error unless err matches want.
func expect(what string, err, want error) error {
	if !errors.Is(err, want) {
		return fmt.Errorf("%s: got %v, want %v", what, err, want)
	}
	return nil
}

func lifecycleBefore() error {
	if Initialized() {
		return errors.New("Initialized before Init")
	}
	c := &Comm{}
	return errors.Join(
		expect("Barrier before Init", c.Barrier(), ErrNotInitialized),
		expect("Send before Init", c.Send([]byte{1}, 0, 0), ErrNotInitialized),
		expect("Finalize before Init", Finalize(), ErrNotInitialized),
		expect("Abort before Init", Abort(nil, 1), ErrNotInitialized),
		expect("WinAllocate before Init", winAllocateBeforeInit(), ErrNotInitialized),
	)
}

func lifecycleAfter() error {
	if !Finalized() {
		return errors.New("Finalized is false after Finalize")
	}
	_, errInit := Init(ThreadSingle)
	_, errDup := World().Dup()
	return errors.Join(
		expect("Barrier after Finalize", World().Barrier(), ErrFinalized),
		expect("Dup after Finalize", errDup, ErrFinalized),
		expect("Init after Finalize", errInit, ErrFinalized),
		expect("Finalize twice", Finalize(), ErrFinalized),
	)
}

// needRanks skips a test that needs at least n ranks.
func needRanks(t *testing.T, n int) {
	t.Helper()
	if s := World().Size(); s < n {
		t.Skipf("needs %d MPI ranks, have %d: run scripts/mpirun-tests.sh or mpirun -np %d on the test binary", n, s, n)
	}
}

// hugeBytes is MaxInt32+1 bytes of inaccessible reserved address space for
// the count-overflow checks: never touched, since the check fires first
// (unsafe.Slice over a small object would trip checkptr under -race).
func hugeBytes(t *testing.T) []byte {
	b, err := syscall.Mmap(-1, 0, math.MaxInt32+1, syscall.PROT_NONE, syscall.MAP_PRIVATE|syscall.MAP_ANON|syscall.MAP_NORESERVE)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := syscall.Munmap(b); err != nil {
			t.Error(err)
		}
	})
	return b
}
