package images

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

func table(t *testing.T, per ...int) *Table {
	t.Helper()
	tb, err := New(per)
	require.NoError(t, err)
	return tb
}

func TestTeamAllGeometry(t *testing.T) {
	tb := table(t, 1, 3, 2)
	all := tb.All()
	require.Equal(t, 6, all.Size())
	require.Equal(t, 3, all.Nodes())
	require.True(t, all.NodeMajor())
	require.Equal(t, []int{1, 2, 3}, all.Members(1))
	require.Equal(t, 2, all.NodeRank(2))
	require.Equal(t, 4, all.Rank(4))
	require.Nil(t, all.Parent())
	require.Equal(t, 3, all.ParentRank(3))
	require.Equal(t, -1, all.Rank(6))
	require.Equal(t, -1, all.Rank(-1))
}

func TestNewTeamRanksAndTranslation(t *testing.T) {
	tb := table(t, 2, 2, 2) // images 0,1 | 2,3 | 4,5
	all := tb.All()
	// Reversed odd images: ranks 0,1,2 are images 5,3,1.
	odd, err := NewTeam(all, []int{5, 3, 1}, 7, 3)
	require.NoError(t, err)
	require.Equal(t, uint64(7), odd.ID())
	require.Equal(t, 3, odd.Context())
	require.Equal(t, 3, odd.Size())
	require.Equal(t, 5, odd.Image(0))
	require.Equal(t, 2, odd.Rank(1))
	require.Equal(t, -1, odd.Rank(0))
	require.True(t, odd.Contains(3))
	require.False(t, odd.Contains(4))
	// Node ranks come in order of their lowest member rank: node 2 first.
	require.Equal(t, 3, odd.Nodes())
	require.Equal(t, 2, odd.NodeAt(0))
	require.Equal(t, 0, odd.NodeRank(2))
	require.Equal(t, 2, odd.NodeRank(0))
	require.True(t, odd.NodeMajor(), "one member per node is node-major")
	// Parent translation both ways.
	require.Equal(t, 5, odd.ParentRank(0))
	require.Equal(t, 0, odd.FromParent(5))
	require.Equal(t, -1, odd.FromParent(4))
	require.Equal(t, -1, odd.FromParent(99))
	// A child of the child translates through its parent.
	sub, err := NewTeam(odd, []int{1, 5}, 8, 4)
	require.NoError(t, err)
	require.Equal(t, 2, sub.ParentRank(0)) // image 1 is rank 2 of odd
	require.Equal(t, 1, sub.FromParent(0)) // odd rank 0 is image 5
	require.Equal(t, 5, sub.Image(1))
	// Not node-major: image 0 and 2 on nodes 0,1 interleaved with node 0 again.
	mixed, err := NewTeam(all, []int{0, 2, 1, 3}, 9, 5)
	require.NoError(t, err)
	require.False(t, mixed.NodeMajor())
	require.Equal(t, []int{0, 2}, mixed.Members(0))
	require.Equal(t, []int{1, 3}, mixed.Members(1))
	// Reversed but each node's members contiguous: node-major with nodes reversed.
	rev, err := NewTeam(all, []int{5, 4, 3, 2, 1, 0}, 10, 6)
	require.NoError(t, err)
	require.True(t, rev.NodeMajor(), "node 2 hosts ranks 0,1 (images 5,4): one run per node")
	require.Equal(t, []int{0, 1}, rev.Members(0))
}

func TestTeamEqual(t *testing.T) {
	tb := table(t, 2, 2)
	all := tb.All()
	a, _ := NewTeam(all, []int{0, 2}, 1, 1)
	b, _ := NewTeam(all, []int{0, 2}, 2, 2)
	c, _ := NewTeam(all, []int{2, 0}, 3, 3)
	require.True(t, a.Equal(b))
	require.False(t, a.Equal(c))
	require.False(t, a.Equal(nil))
	require.True(t, all.Equal(table(t, 2, 2).All()))
	require.False(t, all.Equal(table(t, 1, 3).All()))
}

func TestNewTeamErrors(t *testing.T) {
	all := table(t, 2, 1).All()
	sub, _ := NewTeam(all, []int{0, 1}, 1, 1)
	for _, tc := range []struct {
		parent *Team
		imgs   []int
	}{
		{nil, []int{0}},
		{all, nil},
		{all, []int{0, 0}},
		{all, []int{3}},
		{all, []int{-1}},
		{sub, []int{2}}, // not in the parent
	} {
		_, err := NewTeam(tc.parent, tc.imgs, 1, 1)
		require.ErrorIs(t, err, ErrMembers, "%v", tc.imgs)
	}
}

func TestSplitMembers(t *testing.T) {
	// Ranks 0..5: colors by parity, keys reversed.
	color := []int{0, 1, 0, 1, 0, NoColor}
	key := []int{5, 4, 3, 2, 1, 0}
	groups, group, err := SplitMembers(color, key)
	require.NoError(t, err)
	require.Equal(t, [][]int{{4, 2, 0}, {3, 1}}, groups)
	require.Equal(t, []int{0, 1, 0, 1, 0, -1}, group)
	// Equal keys: ties broken by rank.
	groups, _, err = SplitMembers([]int{3, 3, 3}, []int{1, 0, 1})
	require.NoError(t, err)
	require.Equal(t, [][]int{{1, 0, 2}}, groups)
	// Colors sort groups; large keys do not overflow the comparison.
	groups, _, err = SplitMembers([]int{9, 2}, []int{int(^uint(0) >> 1), -int(^uint(0)>>1) - 1})
	require.NoError(t, err)
	require.Equal(t, [][]int{{1}, {0}}, groups)
	// Everyone out: no groups.
	groups, group, err = SplitMembers([]int{NoColor}, []int{0})
	require.NoError(t, err)
	require.Empty(t, groups)
	require.Equal(t, []int{-1}, group)
	_, _, err = SplitMembers([]int{-2}, []int{0})
	require.True(t, errors.Is(err, ErrColor))
	_, _, err = SplitMembers([]int{0}, nil)
	require.ErrorIs(t, err, ErrMembers)
}
