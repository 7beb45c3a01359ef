package karpenterhash

import "testing"

func ptr[T any](v T) *T { return &v }

func mustHash(t *testing.T, f func() (string, error)) string {
	t.Helper()
	h, err := f()
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func mustNillableDuration(t *testing.T, s string) NillableDuration {
	t.Helper()
	d, err := ParseNillableDuration(s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}
