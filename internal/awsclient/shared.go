package awsclient

import (
	"context"
	"errors"
	"runtime"
	"sync"
)

// sharedLoads keeps one value per key for the whole process: concurrent callers share one load
// (single flight), a kept value serves every later caller, and a load that failed is not kept, so
// the next caller loads again. The catalog and the prices use it, keyed by what decides their
// answer; a key that belongs to one client (not shared) goes with that client.
type sharedLoads[K comparable, V any] struct {
	mu      sync.Mutex
	entries map[K]*sharedEntry[V]
}

// sharedEntry is one key's value and the load in flight, if any.
type sharedEntry[V any] struct {
	mu     sync.Mutex
	val    V
	kept   bool
	flight *sharedFlight[V]
}

// sharedFlight is one load; done is closed when val and err are set.
type sharedFlight[V any] struct {
	done    chan struct{}
	val     V
	err     error
	waiters int // callers waiting on this load (under sharedEntry.mu)
}

// errLoadIncomplete is what waiters get when a load ended without landing (it panicked).
var errLoadIncomplete = errors.New("the load did not complete")

// entry returns key's entry, creating it. owner is the client an unshared key belongs to (nil
// for a shared key): its entry is dropped when the client is.
func (s *sharedLoads[K, V]) entry(key K, owner *Client) *sharedEntry[V] {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.entries == nil {
		s.entries = map[K]*sharedEntry[V]{}
	}
	e, ok := s.entries[key]
	if !ok {
		e = &sharedEntry[V]{}
		s.entries[key] = e
		if owner != nil {
			runtime.AddCleanup(owner, func(k K) {
				s.mu.Lock()
				delete(s.entries, k)
				s.mu.Unlock()
			}, key)
		}
	}
	return e
}

// get returns the kept value, waits for the load in flight, or runs load (which the caller's
// own context governs). A value is kept when load returns no error. A waiter whose own context
// ends stops waiting (the zero value and its context's error). A waiter whose loader's context
// ended, while its own is alive, loads again instead of inheriting that error; any other
// failure is returned to the waiters, with the value the load returned.
func (e *sharedEntry[V]) get(ctx context.Context, load func() (V, error)) (V, error) {
	for {
		e.mu.Lock()
		if e.kept {
			v := e.val
			e.mu.Unlock()
			return v, nil
		}
		if f := e.flight; f != nil {
			f.waiters++
			e.mu.Unlock()
			select {
			case <-f.done:
			case <-ctx.Done():
				var zero V
				return zero, ctx.Err()
			}
			if f.err != nil && isContextError(f.err) && ctx.Err() == nil {
				continue // the loader was cancelled, not us: load again
			}
			return f.val, f.err
		}
		f := &sharedFlight[V]{done: make(chan struct{})}
		e.flight = f
		e.mu.Unlock()
		e.run(f, load)
		return f.val, f.err
	}
}

// offer keeps v when the entry has no value and no load in flight (a load in flight wins).
func (e *sharedEntry[V]) offer(v V) {
	e.mu.Lock()
	if !e.kept && e.flight == nil {
		e.val, e.kept = v, true
	}
	e.mu.Unlock()
}

// run runs one flight and always lands it, even if the load panics, so waiters never hang.
func (e *sharedEntry[V]) run(f *sharedFlight[V], load func() (V, error)) {
	f.err = errLoadIncomplete
	defer func() {
		e.mu.Lock()
		if f.err == nil {
			e.val, e.kept = f.val, true
		}
		e.flight = nil
		e.mu.Unlock()
		close(f.done)
	}()
	f.val, f.err = load()
}
