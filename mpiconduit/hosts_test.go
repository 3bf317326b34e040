package mpiconduit

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gocoll/gocoll/mpiconduit/mpi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// multihostIfEnv names the network interface between hosts in
// scripts/multihost-tests.sh's runs, where each host is a network and UTS
// namespace with its own hostname.
const multihostIfEnv = "GOCOLL_MULTIHOST_IF"

// TestConduitHosts checks that the conduit's node is the host: its
// shared-memory path reaches exactly the processes with this process's
// hostname (MPI_Comm_split_type SHARED groups by the node the MPI runtime
// launched a process on; processes in other namespaces of one machine
// share its memory, but are not of its node). When GOCOLL_MULTIHOST_IF names
// the interface between hosts, it also checks where the bytes go by that
// host's counters (/proc/self/net/dev is the process's network namespace):
// transfers within a host, small (the rings) and large (MPI's shared
// memory), add less than one transfer's bytes to any interface, and
// transfers between hosts add at least theirs to that interface (TCP); and
// the conduit sees the machine oversubscribed when the ranks of all hosts
// together outnumber its processors.
func TestConduitHosts(t *testing.T) {
	w := mpi.World()
	hosts := allHostnames(t, w)
	me := w.Rank()
	cd, err := NewConduitWith(w, ConduitOptions{})
	require.NoError(t, err)
	defer func() { require.NoError(t, cd.Close()) }()
	require.True(t, cd.SharedMemory())
	// Checks from here on do not stop the test: every rank must make the
	// same collective calls.
	var local, remote []int
	for r, h := range hosts {
		onNode := cd.shm.peers[r] != nil
		assert.Equal(t, h == hosts[me], onNode, "rank %d (host %s) seen from rank %d (host %s): shared-memory peer %v", r, h, me, hosts[me], onNode)
		switch {
		case r == me:
		case h == hosts[me]:
			local = append(local, r)
		default:
			remote = append(remote, r)
		}
	}
	// Where the bytes go, by the counters of the interface between hosts:
	// only scripts/multihost-tests.sh's runs have one.
	t.Run("traffic", func(t *testing.T) {
		iface := os.Getenv(multihostIfEnv)
		if iface == "" {
			t.Skipf("%s unset: no interface between hosts (scripts/multihost-tests.sh sets it)", multihostIfEnv)
		}
		// The script's hosts share this machine's processors: the conduit
		// counts every rank, not its host's, when it decides to yield in waits.
		assert.Equal(t, w.Size() > runtime.NumCPU(), cd.shm.crowded(), "%d ranks on %d processors (%d on host %s): crowded", w.Size(), runtime.NumCPU(), len(local)+1, hosts[me])
		// The host's first rank reads its counters, around transfers that every
		// rank makes between barriers.
		first := me == slices.Index(hosts, hosts[me])
		const total = 1 << 20
		measure := func(peers []int, chunk int) (all, onIf uint64) {
			require.NoError(t, w.Barrier())
			all0, if0 := txBytes(t, iface)
			require.NoError(t, w.Barrier())
			exchange(t, cd, peers, total, chunk)
			require.NoError(t, w.Barrier())
			all1, if1 := txBytes(t, iface)
			return all1 - all0, if1 - if0
		}
		for _, chunk := range []int{cd.shm.max, total} {
			all, _ := measure(local, chunk)
			if first {
				// Barriers between hosts cross the interface: a few hundred bytes.
				assert.Less(t, all, uint64(total), "host %s sent %d bytes on its interfaces while its %d ranks exchanged %d bytes in %d-byte transfers among themselves", hosts[me], all, len(local)+1, total, chunk)
			}
		}
		_, onIf := measure(remote, total)
		if first {
			want := uint64((len(local) + 1) * len(remote) * total)
			assert.GreaterOrEqual(t, onIf, want, "host %s sent %d bytes on %s while its ranks sent %d to other hosts", hosts[me], onIf, iface, want)
		}
	})
}

// allHostnames is every rank's hostname, by rank.
func allHostnames(t *testing.T, w *mpi.Comm) []string {
	const max = 256
	h, err := os.Hostname()
	require.NoError(t, err)
	require.LessOrEqual(t, len(h), max)
	mine := make([]byte, max)
	copy(mine, h)
	all := make([]byte, max*w.Size())
	require.NoError(t, mpi.Allgather(w, mine, all))
	hosts := make([]string, w.Size())
	for r := range hosts {
		hosts[r] = string(bytes.TrimRight(all[r*max:(r+1)*max], "\x00"))
	}
	return hosts
}

// exchange sends n bytes to each peer and receives n from each, in
// transfers of chunk bytes, and waits for all of them.
func exchange(t *testing.T, cd *Conduit, peers []int, n, chunk int) {
	out := make([]byte, n)
	in := make([][]byte, len(peers))
	left := map[uint64]bool{}
	start := func(tok uint64, done bool, err error) {
		require.NoError(t, err)
		if !done {
			left[tok] = true
		}
	}
	tok := uint64(0)
	for i, p := range peers {
		in[i] = make([]byte, n)
		for off := 0; off < n; off += chunk {
			tok++
			done, err := cd.Irecv(p, 7, in[i][off:off+chunk], tok)
			start(tok, done, err)
			tok++
			done, err = cd.Isend(p, 7, out[off:off+chunk], tok)
			start(tok, done, err)
		}
	}
	var got []uint64
	for len(left) > 0 {
		var err error
		got, err = cd.Poll(got[:0])
		require.NoError(t, err)
		for _, g := range got {
			delete(left, g)
		}
		cd.Idle()
	}
}

// txBytes reads the bytes sent on every interface of this network
// namespace, and on iface, from /proc/self/net/dev.
func txBytes(t *testing.T, iface string) (all, onIf uint64) {
	f, err := os.Open("/proc/self/net/dev")
	require.NoError(t, err)
	defer f.Close()
	found := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, rest, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue // the two header lines
		}
		// receive: bytes packets errs drop fifo frame compressed multicast;
		// then transmit: bytes ...
		fields := strings.Fields(rest)
		require.GreaterOrEqual(t, len(fields), 9, "line %q", sc.Text())
		tx, err := strconv.ParseUint(fields[8], 10, 64)
		require.NoError(t, err)
		all += tx
		if strings.TrimSpace(name) == iface {
			onIf, found = tx, true
		}
	}
	require.NoError(t, sc.Err())
	require.True(t, found, fmt.Sprintf("%s=%s: no such interface in /proc/self/net/dev", multihostIfEnv, iface))
	return all, onIf
}
