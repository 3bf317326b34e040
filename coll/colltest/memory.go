package colltest

import (
	"fmt"
	"sync"
)

// Memory is memory of every node that any node can read and write, like a
// GASNet segment. The ALL/ALL cases of the suite keep their data areas in
// it so that a peer can write a node's inputs and read its outputs.
type Memory interface {
	// Local is this node's part.
	Local() []byte
	// Put writes b at off in node's part; it is complete on return.
	Put(node, off int, b []byte) error
	// Get reads len(b) bytes at off of node's part; complete on return.
	Get(node, off int, b []byte) error
}

// sharedMemory is Memory for in-process nodes: plain slices, guarded per
// node so that remote access is ordered with the node's own.
type sharedMemory struct {
	parts [][]byte
	mus   []sync.Mutex
}

func newSharedMemory(nodes, size int) *sharedMemory {
	m := &sharedMemory{parts: make([][]byte, nodes), mus: make([]sync.Mutex, nodes)}
	for i := range m.parts {
		m.parts[i] = make([]byte, size)
	}
	return m
}

type nodeMemory struct {
	*sharedMemory
	node int
}

// Local implements Memory.
func (m nodeMemory) Local() []byte { return m.parts[m.node] }

// Put implements Memory.
func (m nodeMemory) Put(node, off int, b []byte) error {
	if off < 0 || off+len(b) > len(m.parts[node]) {
		return fmt.Errorf("colltest: put [%d,%d) outside node %d's memory", off, off+len(b), node)
	}
	m.mus[node].Lock()
	copy(m.parts[node][off:], b)
	m.mus[node].Unlock()
	return nil
}

// Get implements Memory.
func (m nodeMemory) Get(node, off int, b []byte) error {
	if off < 0 || off+len(b) > len(m.parts[node]) {
		return fmt.Errorf("colltest: get [%d,%d) outside node %d's memory", off, off+len(b), node)
	}
	m.mus[node].Lock()
	copy(b, m.parts[node][off:])
	m.mus[node].Unlock()
	return nil
}
