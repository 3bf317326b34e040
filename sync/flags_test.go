package sync

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestFlagsValidate(t *testing.T) {
	good := InMySync | OutAllSync | Single
	require.NoError(t, good.Validate())
	require.NoError(t, (InNoSync | OutNoSync | Local | Aggregate | AllThreads | SrcInSegment | DstInSegment).Validate())
	for _, c := range []struct {
		f    Flags
		want error
	}{
		{0, ErrNoInSync},
		{OutMySync | Local, ErrNoInSync},
		{InMySync | InNoSync | OutMySync | Local, ErrManyInSync},
		{InMySync | Local, ErrNoOutSync},
		{InMySync | OutMySync | OutAllSync | Local, ErrManyOutSync},
		{InMySync | OutMySync, ErrNoAddressing},
		{InMySync | OutMySync | Local | Single, ErrManyAddressing},
		{good | 1<<31, ErrUnknownFlag},
	} {
		err := c.f.Validate()
		require.ErrorIs(t, err, c.want, c.f.String())
		require.ErrorIs(t, err, ErrFlags)
	}
	require.Equal(t, "InMySync|OutAllSync|Single", good.String())
}
