package core

import (
	"fmt"
	"os"
	stdsync "sync"
	"time"
)

// DefaultStallTimeout is coll.DefaultStallTimeout.
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
// Config.StallTimeout when set (negative: none), else GOCOLL_STALL, else
// DefaultStallTimeout.
func stallTimeout(opts Config) time.Duration {
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
