//go:build !race

package coarray_test

// raceOn: the race detector is on (sync.Pool then drops a quarter of what
// it is given, on purpose).
const raceOn = false
