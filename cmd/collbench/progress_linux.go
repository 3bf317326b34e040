package main

import (
	"fmt"
	"os"
	"syscall"
	"unsafe"
)

// isTerminal reports whether f is a terminal (the TCGETS ioctl succeeds, as
// isatty does).
func isTerminal(f *os.File) bool {
	var t syscall.Termios
	_, _, e := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), syscall.TCGETS, uintptr(unsafe.Pointer(&t)))
	return e == 0
}

// parentStderrIsTerminal reports whether the parent process (mpirun, which
// forwards the ranks' stderr to its own) writes its stderr to a terminal.
// Non-blocking: opening a pipe (the usual fd 2 of a parent) must not wait.
func parentStderrIsTerminal() bool {
	f, err := os.OpenFile(fmt.Sprintf("/proc/%d/fd/2", os.Getppid()), os.O_RDONLY|syscall.O_NOCTTY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	return isTerminal(f)
}
