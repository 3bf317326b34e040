package engine

import (
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"runtime/debug"
	"strconv"
	stdsync "sync"
	"sync/atomic"
)

// User code inside gocoll. Reduction functions are the only user code the
// engine runs, inside the node's gocoll calls (or on the progress agent):
// in a Step, with the engine's lock held. Two things must not turn into a
// hang or a corrupt engine:
//
//   - Re-entry: user code that calls gocoll (for example Poll, or Wait on
//     a handle) would wait for the lock its own goroutine holds. Every
//     public call of gocoll first asks Reentrant, which finds CallUser on
//     the calling goroutine's stack: such a call returns ErrReentrant, and
//     once the user code returns, the operation it ran for fails with
//     ErrReentrant on that node.
//   - A panic: the engine recovers it in the Step that ran the user code
//     (Run), the operation fails with a *PanicError, and the panic is
//     raised again, as that *PanicError, on the application goroutine that
//     syncs the operation's handle (Try, Wait, the ...All and ...Some
//     calls), or whose initiation ran it.
//
// Either way the operation is over on this node: it never steps again,
// its handles return the error, and it leaves the table (Live) once they
// are synced; a transfer of it still in flight keeps its slot (not
// counted by Live) until complete (see Quieter). Its peers are not told:
// they see the collective stop (a stall, see SetStallTimeout).
//
// The check costs a load of one counter on every public call; the stack
// is read only while some goroutine of the process runs user code.

// Errors of user code; test with errors.Is.
var (
	// ErrReentrant: gocoll was called from inside a reduction function.
	ErrReentrant = errors.New("gocoll: called from inside a reduction function (gocoll may not be re-entered)")
)

// PanicError is a panic of a reduction function, recovered inside gocoll
// and raised again on the application goroutine that syncs the operation
// (or initiated it). Stack is the stack of the goroutine that panicked.
type PanicError struct {
	Value any
	Stack []byte
}

func (p *PanicError) Error() string {
	return fmt.Sprintf("gocoll: a reduction function panicked: %v", p.Value)
}

// Unwrap is the panic's value when it is an error.
func (p *PanicError) Unwrap() error {
	err, _ := p.Value.(error)
	return err
}

var (
	inUser    atomic.Int32 // goroutines inside CallUser
	reentries atomic.Int32 // re-entries not yet taken by their CallUser
	reentryMu stdsync.Mutex
	reentered = map[uint64]bool{} // goroutine id -> it re-entered
	// callUserName is CallUser's function name, as stack frames give it.
	callUserName = runtime.FuncForPC(reflect.ValueOf(CallUser).Pointer()).Name()
)

// reentrySignal unwinds gocoll's frames from a CallUser whose user code
// re-entered gocoll up to the Run that recovers it.
type reentrySignal struct{}

// CallUser runs f, user code (a reduction function), so that gocoll calls
// made from inside it are refused (Reentrant). If f re-entered gocoll and
// then returned, CallUser panics with a signal that Run (or the engine's
// step) turns into ErrReentrant, failing the operation.
//
//go:noinline
func CallUser(f func()) {
	inUser.Add(1)
	returned := false
	defer func() {
		inUser.Add(-1)
		if reentries.Load() > 0 && takeReentry() && returned {
			panic(reentrySignal{})
		}
	}()
	f()
	returned = true
}

// Reentrant returns ErrReentrant when the calling goroutine is inside user
// code that gocoll runs (CallUser), and remembers it so that the operation
// fails once the user code returns; otherwise nil.
func Reentrant() error {
	if inUser.Load() == 0 {
		return nil
	}
	if !onStack(callUserName) {
		return nil
	}
	reentryMu.Lock()
	if id := goid(); !reentered[id] {
		reentered[id] = true
		reentries.Add(1)
	}
	reentryMu.Unlock()
	return ErrReentrant
}

// takeReentry reports (and forgets) whether the calling goroutine
// re-entered gocoll.
func takeReentry() bool {
	reentryMu.Lock()
	defer reentryMu.Unlock()
	id := goid()
	if !reentered[id] {
		return false
	}
	delete(reentered, id)
	reentries.Add(-1)
	return true
}

// onStack reports whether a frame of the function named name is on the
// calling goroutine's stack.
func onStack(name string) bool {
	pcs := make([]uintptr, 64)
	for {
		n := runtime.Callers(2, pcs)
		frames := runtime.CallersFrames(pcs[:n])
		for {
			f, more := frames.Next()
			if f.Function == name {
				return true
			}
			if !more {
				break
			}
		}
		if n < len(pcs) {
			return false
		}
		pcs = make([]uintptr, 2*len(pcs)) // a deep stack: read all of it
	}
}

// goid is the calling goroutine's id, from the header of its stack trace
// ("goroutine 18 [running]:"). It is slow (a microsecond), and only used
// on re-entry.
func goid() uint64 {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	const prefix = "goroutine "
	if len(b) < len(prefix) {
		return 0
	}
	b = b[len(prefix):]
	i := 0
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	id, _ := strconv.ParseUint(string(b[:i]), 10, 64)
	return id
}

// Run runs f, gocoll's code that may run user code (CallUser), and
// returns its error, or what a panic in it became: ErrReentrant (the user
// code called gocoll) or a *PanicError.
func Run(f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = recovered(r)
		}
	}()
	return f()
}

func recovered(r any) error {
	if _, ok := r.(reentrySignal); ok {
		return fmt.Errorf("%w: the collective whose reduction function called gocoll failed", ErrReentrant)
	}
	return &PanicError{Value: r, Stack: debug.Stack()}
}

// Rethrow panics with err when it is a *PanicError, on the goroutine that
// receives it from gocoll; otherwise it returns err.
func Rethrow(err error) error {
	if err == nil {
		return nil
	}
	var pe *PanicError
	if errors.As(err, &pe) {
		panic(pe)
	}
	return err
}
