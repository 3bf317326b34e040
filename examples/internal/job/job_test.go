package job

import (
	"errors"
	"testing"
)

func TestUsage(t *testing.T) {
	base := errors.New("heat2d: bad grid")
	err := Usage(base)
	if !errors.Is(err, ErrUsage) || !errors.Is(err, base) || err.Error() != base.Error() {
		t.Errorf("Usage(%v) = %v: Is ErrUsage %v, Is base %v", base, err, errors.Is(err, ErrUsage), errors.Is(err, base))
	}
	if errors.Is(base, ErrUsage) {
		t.Error("an unmarked error is a usage error")
	}
}
