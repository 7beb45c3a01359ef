package admitted

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestNilStoreKeepsNothing(t *testing.T) {
	var s *Store
	s.Add("1.15", "NodePool", "doc")
	if s.Has("1.15", "NodePool", "doc") || s.Recorded() || s.Path() != "" || s.Close() != nil {
		t.Fatal("a nil store knows something")
	}
	if Open("", "v1") != nil || OpenFor("", "v1") != nil {
		t.Fatal("a store without a directory")
	}
}

func TestAdmissionsOutliveTheProcessOfTheSameBuildOnly(t *testing.T) {
	dir := t.TempDir()
	first := OpenFor(dir, "build-1")
	if first.Recorded() {
		t.Fatal("a new directory has records")
	}
	first.Add("1.15", "NodePool", "spec: a")
	if !first.Has("1.15", "NodePool", "spec: a") {
		t.Fatal("the store forgot what it just recorded")
	}
	for _, other := range [][3]string{{"1.14", "NodePool", "spec: a"}, {"1.15", "EC2NodeClass", "spec: a"}, {"1.15", "NodePool", "spec: b"}} {
		if first.Has(other[0], other[1], other[2]) {
			t.Fatalf("%q was never admitted", other)
		}
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}

	again := OpenFor(dir, "build-1") // a later process of the same build
	if !again.Recorded() || !again.Has("1.15", "NodePool", "spec: a") || again.Has("1.15", "NodePool", "spec: b") {
		t.Fatalf("a later process reads recorded=%v", again.Recorded())
	}
	other := OpenFor(dir, "build-2")
	if other.Recorded() || other.Has("1.15", "NodePool", "spec: a") || other.Path() == again.Path() {
		t.Fatal("another build took this build's verdicts")
	}
}

func TestUnreadableLinesAreSkipped(t *testing.T) {
	dir := t.TempDir()
	s := OpenFor(dir, "b")
	s.Add("1.15", "NodePool", "kept")
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile(s.Path())
	if err != nil {
		t.Fatal(err)
	}
	// A crash cut a line short, a line ran into the next, and someone wrote text.
	line := strings.TrimSpace(string(good))
	junk := line[:10] + "\n" + line + line + "\nnot a digest at all, of any length....\n" + strings.Repeat("zz", 16) + "\n"
	if err := os.WriteFile(s.Path(), []byte(junk+string(good)), 0o600); err != nil {
		t.Fatal(err)
	}
	r := OpenFor(dir, "b")
	if !r.Has("1.15", "NodePool", "kept") {
		t.Fatal("the valid line was lost")
	}
	if n := len(r.known); n != 1 {
		t.Fatalf("%d entries read from one valid line and junk", n)
	}
}

func TestConcurrentProcessesAppendWholeLines(t *testing.T) {
	dir := t.TempDir()
	const writers, each = 4, 200
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			s := OpenFor(dir, "b") // each its own file handle, as separate processes
			defer s.Close()
			for i := range each {
				s.Add("1.15", "NodePool", fmt.Sprintf("w%d-%d", w, i))
			}
		})
	}
	wg.Wait()
	r := OpenFor(dir, "b")
	for w := range writers {
		for i := range each {
			if !r.Has("1.15", "NodePool", fmt.Sprintf("w%d-%d", w, i)) {
				t.Fatalf("w%d-%d lost", w, i)
			}
		}
	}
	raw, err := os.ReadFile(r.Path())
	if err != nil {
		t.Fatal(err)
	}
	if lines := strings.Count(string(raw), "\n"); lines != writers*each {
		t.Fatalf("%d lines for %d admissions", lines, writers*each)
	}
}

func TestAFileStopsGrowingAtItsBound(t *testing.T) {
	dir := t.TempDir()
	s := OpenFor(dir, "b")
	for i := range MaxEntries + 10 {
		s.Add("1.15", "NodePool", fmt.Sprint(i))
	}
	s.Close()
	raw, err := os.ReadFile(s.Path())
	if err != nil {
		t.Fatal(err)
	}
	if lines := strings.Count(string(raw), "\n"); lines != MaxEntries {
		t.Fatalf("%d lines, bound %d", lines, MaxEntries)
	}
	r := OpenFor(dir, "b")
	if !r.Has("1.15", "NodePool", "0") || r.Has("1.15", "NodePool", fmt.Sprint(MaxEntries)) {
		t.Fatal("the first admissions should be kept and those past the bound not")
	}
}

func TestANewBuildRemovesFilesOfBuildsLongUnused(t *testing.T) {
	dir := t.TempDir()
	old, recent := OpenFor(dir, "old"), OpenFor(dir, "recent")
	old.Add("1.15", "NodePool", "x")
	recent.Add("1.15", "NodePool", "x")
	old.Close()
	recent.Close()
	unrelated := filepath.Join(dir, "catalog-0123.gob")
	if err := os.WriteFile(unrelated, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	long := time.Now().Add(-staleAfter - time.Hour)
	for _, p := range []string{old.Path(), unrelated} {
		if err := os.Chtimes(p, long, long); err != nil {
			t.Fatal(err)
		}
	}
	n := OpenFor(dir, "new")
	n.Add("1.15", "NodePool", "x")
	n.Close()
	if _, err := os.Stat(old.Path()); !os.IsNotExist(err) {
		t.Fatalf("the long-unused build's file is still there: %v", err)
	}
	for _, p := range []string{recent.Path(), unrelated, n.Path()} {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("%s: %v", filepath.Base(p), err)
		}
	}
}

func TestOpenNamesTheRunningExecutable(t *testing.T) {
	dir := t.TempDir()
	a, b := Open(dir, "1.0.0"), Open(dir, "1.0.1")
	if a == nil || b == nil || a.Path() == b.Path() {
		t.Fatal("two versions of one executable share a file")
	}
	if again := Open(dir, "1.0.0"); again.Path() != a.Path() {
		t.Fatal("the same executable and version must find its file again")
	}
}

func TestAnUnwritableDirectoryOnlyLosesTheRecord(t *testing.T) {
	file := filepath.Join(t.TempDir(), "a-file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	s := OpenFor(filepath.Join(file, "sub"), "b") // a directory under a regular file cannot exist
	s.Add("1.15", "NodePool", "x")
	s.Add("1.15", "NodePool", "y")
	if !s.Has("1.15", "NodePool", "x") {
		t.Fatal("the process itself should still remember")
	}
	if OpenFor(filepath.Join(file, "sub"), "b").Recorded() {
		t.Fatal("nothing could be written")
	}
}
