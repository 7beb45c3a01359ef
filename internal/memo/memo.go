// Package memo runs each keyed load once among the concurrent and later callers of one provider
// process: the AWS reads (discovery, listings) and the cluster-wide Kubernetes lists share it.
package memo

import (
	"context"
	"sync"
)

// Memo runs each keyed load once among the concurrent and later callers of one provider
// configuration (one Terraform walk); a failed load is forgotten, so the next caller tries
// again, while the callers that waited on it get its error. Discovery (one Describe per filter
// set), the resource-read listings (one listing per scope) and the cluster's NodePools and
// NodeOverlays share it. The zero value is ready to use.
type Memo struct {
	mu      sync.Mutex
	entries map[string]*memoEntry
}

type memoEntry struct {
	done chan struct{}
	val  any
	err  error
}

// Do returns the value of key, running load when no caller has yet (or the last load failed).
func Do[T any](ctx context.Context, m *Memo, key string, load func() (T, error)) (T, error) {
	m.mu.Lock()
	if m.entries == nil {
		m.entries = map[string]*memoEntry{}
	}
	e, ok := m.entries[key]
	if !ok {
		e = &memoEntry{done: make(chan struct{})}
		m.entries[key] = e
		m.mu.Unlock()
		v, err := load()
		e.val, e.err = v, err
		if err != nil {
			m.mu.Lock()
			delete(m.entries, key)
			m.mu.Unlock()
		}
		close(e.done)
		return v, err
	}
	m.mu.Unlock()
	var zero T
	select {
	case <-e.done:
		if e.err != nil {
			return zero, e.err
		}
		v, _ := e.val.(T) // one key always loads one type: keys carry their kind
		return v, nil
	case <-ctx.Done():
		return zero, ctx.Err()
	}
}
