// Package awsfake holds the test doubles of the AWS APIs the provider calls: one in-memory fake
// per API (EC2, IAM, EKS, Pricing), holding objects in exported slices and answering the
// provider's calls with the API's semantics (filters, explicit ids and their NotFound errors,
// pagination), recording every call and failing or intercepting calls on demand. Unit suites
// use these instead of fakes of their own; acceptance tests talk to LocalStack, and where it
// falls short to internal/acctest's stubs, which serve these fakes over HTTP (EC2.ServeHTTP,
// Pricing.ServeHTTP) and forward the rest to LocalStack.
//
// Every fake shares the same levers:
//   - Fail makes an operation ("DescribeSubnets") always answer an error; FailNext queues
//     errors for its next calls, one per call (a nil entry lets that call through).
//   - Hook sees every call before the fake answers it: it can block (a gate), sleep, change the
//     fake's objects, or answer the call itself (a non-nil output or error).
//   - PageSize (on the fakes of paginated APIs) bounds the pages of an operation below
//     MaxResults; page tokens are page numbers.
//   - Calls, Log, Inputs and ForgetCalls tell what the code under test asked.
//
// The package imports no provider package, so every suite can use it, internal tests of
// internal/awsclient included; internal/awsfake's tests check that each fake satisfies the
// awsclient interface it stands in for.
package awsfake

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	smithy "github.com/aws/smithy-go"
)

// Hook is the type of a fake's Hook field: it runs on every call before the fake answers, with
// the operation name and the call's input (*ec2.CreateFleetInput, ...). A non-nil output (of the
// operation's output type, *ec2.CreateFleetOutput) or error is the call's answer; nil, nil lets
// the fake answer. It runs without the fake's lock held, so it may change the fake's objects
// (between calls that do not run concurrently).
type Hook func(ctx context.Context, op string, in any) (out any, err error)

// Call is one call a fake received: the operation, a copy of its input (a pointer, e.g.
// *ec2.DescribeSubnetsInput) and the error it answered.
type Call struct {
	Op    string
	Input any
	Err   error
}

// Recorder is any fake: what Inputs reads.
type Recorder interface {
	Log() []Call
}

// recorder is the log of a fake's calls and the lock of its state.
type recorder struct {
	mu       sync.Mutex
	log      []Call
	gen      int // bumped by ForgetCalls, so a call in flight does not write into the new log
	seq      int // the last id handed out by nextID
	now      int // seconds of the fake clock since epoch
	requests int // HTTP requests served, for their request ids
}

// epoch starts a fake's clock: the first object it creates is a second younger.
var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// clock is the fake's time, a second later on every reading, so creations are ordered.
// The caller holds the lock.
func (r *recorder) clock() time.Time {
	r.now++
	return epoch.Add(time.Duration(r.now) * time.Second)
}

// Calls is how many times the operations were called, together, failed calls included.
func (r *recorder) Calls(ops ...string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, c := range r.log {
		for _, op := range ops {
			if c.Op == op {
				n++
			}
		}
	}
	return n
}

// Log is every call so far, in order.
func (r *recorder) Log() []Call {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Call(nil), r.log...)
}

// ForgetCalls empties the log: Calls, Log and Inputs then tell only what comes after.
func (r *recorder) ForgetCalls() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.log = nil
	r.gen++
}

// nextID is a fresh id with the prefix, 17 hex digits as EC2's: prefix-00000000000000001.
// The caller holds the lock.
func (r *recorder) nextID(prefix string) string {
	r.seq++
	return fmt.Sprintf("%s-%017x", prefix, r.seq)
}

// Inputs are the inputs of every call whose input is a *T, in call order: Inputs[ec2.CreateFleetInput](f)
// are the CreateFleet requests the fake received.
func Inputs[T any](f Recorder) []T {
	var out []T
	for _, c := range f.Log() {
		if in, ok := c.Input.(*T); ok {
			out = append(out, *in)
		}
	}
	return out
}

// levers are a fake's Fail, FailNext and Hook fields, as serve reads them.
type levers struct {
	fail     map[string]error
	failNext map[string][]error
	hook     Hook
}

// serve runs one call: it records it, answers a done context's error, runs the hook, takes a
// queued or configured failure, and otherwise answers with answer, under the fake's lock.
func serve[I, O any](ctx context.Context, r *recorder, l levers, op string, in *I, answer func(*I) (*O, error)) (*O, error) {
	if in == nil {
		in = new(I)
	}
	cp := *in
	r.mu.Lock()
	i, gen := len(r.log), r.gen
	r.log = append(r.log, Call{Op: op, Input: &cp})
	r.mu.Unlock()

	out, err := func() (*O, error) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if l.hook != nil {
			o, err := l.hook(ctx, op, in)
			if o != nil {
				typed, ok := o.(*O)
				if !ok {
					panic(fmt.Sprintf("awsfake: the hook answered %s with a %T, want a %T", op, o, (*O)(nil)))
				}
				return typed, err
			}
			if err != nil {
				return nil, err
			}
		}
		r.mu.Lock()
		defer r.mu.Unlock()
		if q := l.failNext[op]; len(q) > 0 {
			l.failNext[op] = q[1:]
			if q[0] != nil {
				return nil, q[0]
			}
		}
		if err := l.fail[op]; err != nil {
			return nil, err
		}
		o, err := answer(in)
		if err != nil {
			return nil, err
		}
		return o, nil
	}()

	r.mu.Lock()
	if r.gen == gen {
		r.log[i].Err = err
	}
	r.mu.Unlock()
	return out, err
}

// apiError is an AWS API error as the SDK returns it.
func apiError(code, format string, args ...any) error {
	return &smithy.GenericAPIError{Code: code, Message: fmt.Sprintf(format, args...), Fault: smithy.FaultClient}
}

// page cuts one page out of items: a page holds at most maxResults items and at most
// pageSize[op] (either may be unset; neither: everything), and its token names the next page
// by number ("1" is the second page). The last page has no token.
func page[T any](op string, items []T, pageSize map[string]int, maxResults *int32, token *string) ([]T, *string, error) {
	size := len(items)
	if n := pageSize[op]; n > 0 {
		size = n
	}
	if n := int(aws.ToInt32(maxResults)); n > 0 && (n < size || pageSize[op] <= 0) {
		size = n
	}
	size = max(size, 1)
	start := 0
	if t := aws.ToString(token); t != "" {
		n, err := strconv.Atoi(t)
		if err != nil || n < 1 {
			return nil, nil, apiError("InvalidNextToken", "The token %q is invalid.", t)
		}
		start = min(n*size, len(items))
	}
	end := min(start+size, len(items))
	var next *string
	if end < len(items) {
		next = aws.String(strconv.Itoa(end / size))
	}
	return items[start:end], next, nil
}

// fields answer an object's values for the EC2 filter names the fake implements.
type fields[T any] map[string]func(T) []string

// selectObjects are the objects that match every filter, in order: EC2's semantics (filters
// AND, the values of one filter OR, * and ? wildcards in values, tag:<key>, tag-key and
// tag-value from the object's tags). A filter name the fake does not implement panics, so a
// suite sees at once that the code asked for something the fake would silently ignore.
func selectObjects[T any](op string, objs []T, filters []ec2types.Filter, tags func(T) []ec2types.Tag, f fields[T]) []T {
	for _, flt := range filters {
		name := aws.ToString(flt.Name)
		if _, ok := f[name]; !ok && !strings.HasPrefix(name, "tag:") && name != "tag-key" && name != "tag-value" {
			panic(fmt.Sprintf("awsfake: %s: filter %q is not implemented", op, name))
		}
	}
	var out []T
	for _, o := range objs {
		if matchesAll(o, filters, tags, f) {
			out = append(out, o)
		}
	}
	return out
}

func matchesAll[T any](o T, filters []ec2types.Filter, tags func(T) []ec2types.Tag, f fields[T]) bool {
	for _, flt := range filters {
		name := aws.ToString(flt.Name)
		var have []string
		switch {
		case strings.HasPrefix(name, "tag:"), name == "tag-key", name == "tag-value":
			if tags == nil {
				return false
			}
			for _, t := range tags(o) {
				switch {
				case name == "tag-key":
					have = append(have, aws.ToString(t.Key))
				case name == "tag-value":
					have = append(have, aws.ToString(t.Value))
				case aws.ToString(t.Key) == strings.TrimPrefix(name, "tag:"):
					have = append(have, aws.ToString(t.Value))
				}
			}
		default:
			have = f[name](o)
		}
		if !anyMatch(flt.Values, have) {
			return false
		}
	}
	return true
}

func anyMatch(patterns, values []string) bool {
	for _, p := range patterns {
		for _, v := range values {
			if wildcard(p, v) {
				return true
			}
		}
	}
	return false
}

// wildcard reports whether s matches an EC2 filter value: * is any run of characters, ? any
// one character, and a backslash escapes the next character.
func wildcard(pattern, s string) bool {
	p, v := []rune(pattern), []rune(s)
	// Iterative matching with one backtrack point (the last *).
	pi, vi, star, mark := 0, 0, -1, 0
	for vi < len(v) {
		switch {
		case pi < len(p) && p[pi] == '*':
			star, mark = pi, vi
			pi++
		case pi < len(p) && p[pi] == '\\' && pi+1 < len(p) && p[pi+1] == v[vi]:
			pi, vi = pi+2, vi+1
		case pi < len(p) && p[pi] != '\\' && (p[pi] == '?' || p[pi] == v[vi]):
			pi, vi = pi+1, vi+1
		case star >= 0:
			pi, mark = star+1, mark+1
			vi = mark
		default:
			return false
		}
	}
	for pi < len(p) && p[pi] == '*' {
		pi++
	}
	return pi == len(p)
}

// byIDs keeps the objects whose id is asked, in order; with ids asked, one the fake does not
// hold fails the call with code, as EC2 does. No ids: every object.
func byIDs[T any](objs []T, ids []string, id func(T) string, code, kind string) ([]T, error) {
	if len(ids) == 0 {
		return objs, nil
	}
	held := map[string]bool{}
	for _, o := range objs {
		held[id(o)] = true
	}
	for _, want := range ids {
		if !held[want] {
			return nil, apiError(code, "The %s '%s' does not exist", kind, want)
		}
	}
	var out []T
	for _, o := range objs {
		for _, want := range ids {
			if id(o) == want {
				out = append(out, o)
				break
			}
		}
	}
	return out, nil
}

// str is a filter field of one optional string.
func str(s *string) []string {
	if s == nil {
		return nil
	}
	return []string{*s}
}

// enum is a filter field of one string-typed enum value.
func enum[S ~string](s S) []string {
	if s == "" {
		return nil
	}
	return []string{string(s)}
}
