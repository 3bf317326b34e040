package coll

import (
	"fmt"
	"os"
	stdsync "sync"
	"time"
)

// DefaultStallTimeout is how long a wait may see no progress before it
// fails with ErrStalled, when neither Options.StallTimeout nor GOCOLL_STALL
// says otherwise. Progress is counted only while the node waits, so the
// time is spent by the node's peers: a peer that computes or writes a
// checkpoint for longer before it enters the collective trips it. Ten
// minutes is far beyond the seconds that phases between collectives take
// in the codes gocoll serves, and well inside the hours a batch
// allocation lasts, so that a skipped call, an image that returned early
// or a dead peer ends the job with an error naming the peers it waits for
// instead of burning the allocation in a hang. Codes with longer phases on
// one image raise it or turn it off (GOCOLL_STALL=off).
const DefaultStallTimeout = 10 * time.Minute

// envStall is GOCOLL_STALL, read once: a duration ("90s", "10m"), or "0"
// or "off" for no watchdog; unset is the default.
var envStall = stdsync.OnceValues(func() (time.Duration, error) {
	v, ok := os.LookupEnv("GOCOLL_STALL")
	switch {
	case !ok || v == "":
		return 0, nil
	case v == "off" || v == "0":
		return -1, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%w: GOCOLL_STALL=%q is not a positive duration (such as 90s or 10m), 0 or off", ErrStallTimeout, v)
	}
	return d, nil
})

// stallTimeout is the watchdog's timeout for opts, 0 for none:
// Options.StallTimeout when set (negative: none), else GOCOLL_STALL, else
// DefaultStallTimeout.
func stallTimeout(opts Options) time.Duration {
	d := opts.StallTimeout
	if d == 0 {
		d, _ = envStall()
	}
	switch {
	case d < 0:
		return 0
	case d == 0:
		return DefaultStallTimeout
	}
	return d
}
