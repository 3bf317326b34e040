//go:build !linux

package main

import "os"

// isTerminal is false where collbench cannot tell: no status line.
func isTerminal(*os.File) bool { return false }

func parentStderrIsTerminal() bool { return false }
