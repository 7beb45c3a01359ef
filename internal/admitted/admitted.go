// Package admitted keeps on disk which manifests a build of the provider admitted without a
// finding: the API server's validation of Karpenter's CRD (with its CEL rules) and Karpenter's
// runtime validation, for one Karpenter version. That verdict is a function of the document, the
// version and the code that judged it and nothing else, so a later process of the same
// executable can take it instead of judging the document again, and a plan whose every manifest
// was admitted before needs no CEL program at all (compiling Karpenter's CRDs costs tens of
// milliseconds of CPU per process, judging a NodePool about half a millisecond).
//
// Only admissions are kept: a refusal is judged again, for its messages. The file is named by
// the executable (its path, size and modification time) and the provider's version, so a new
// build or release starts an empty one; entries are appended, one line each, by every process
// that admits a new document.
package admitted

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// MaxEntries bounds a file: past it, new admissions are no longer recorded (they are judged
// again by later processes, as without the store).
const MaxEntries = 50000

// staleAfter is how long a file of another build is kept without a new entry before a new file
// removes it (a build whose every plan hits its file does not write it: it starts over).
const staleAfter = 30 * 24 * time.Hour

const (
	prefix = "admitted-"
	suffix = ".txt"
)

type digest [16]byte

// Store is the admissions recorded for one executable. The zero of *Store (nil) records nothing
// and knows nothing.
type Store struct {
	path     string
	recorded bool // the file held entries when the store was opened

	mu     sync.Mutex
	known  map[digest]bool
	loaded bool
	out    *os.File
	broken bool // the file cannot be written: stop trying
}

// Open is the store of the executable identified by build (what differs between builds, such
// as the provider's version) in dir. It returns nil when dir is "" or the executable cannot be
// identified: no verdict is then kept.
func Open(dir, build string) *Store {
	if dir == "" {
		return nil
	}
	exe, err := os.Executable()
	if err != nil {
		return nil
	}
	fi, err := os.Stat(exe)
	if err != nil {
		return nil
	}
	return OpenFor(dir, fmt.Sprintf("%s\x00%d\x00%d\x00%s", exe, fi.Size(), fi.ModTime().UnixNano(), build))
}

// OpenFor is the store of the build identified by identity in dir (Open names the running
// executable).
func OpenFor(dir, identity string) *Store {
	if dir == "" {
		return nil
	}
	sum := sha256.Sum256([]byte(identity))
	s := &Store{path: filepath.Join(dir, prefix+hex.EncodeToString(sum[:12])+suffix)}
	if fi, err := os.Stat(s.path); err == nil && fi.Size() > 0 {
		s.recorded = true
	}
	return s
}

// Recorded tells whether earlier processes of this build recorded admissions: when not, the
// manifests of this process will be judged, and compiling the CRDs early pays.
func (s *Store) Recorded() bool { return s != nil && s.recorded }

// Path is the file of the store ("" for nil).
func (s *Store) Path() string {
	if s == nil {
		return ""
	}
	return s.path
}

func digestOf(version, kind, doc string) digest {
	h := sha256.New()
	for _, part := range []string{version, kind, doc} {
		_, _ = io.WriteString(h, part)
		_, _ = h.Write([]byte{0})
	}
	var d digest
	copy(d[:], h.Sum(nil))
	return d
}

// Has tells whether the document of kind was admitted for version by an earlier judgement of
// this build.
func (s *Store) Has(version, kind, doc string) bool {
	if s == nil {
		return false
	}
	d := digestOf(version, kind, doc)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.load()
	return s.known[d]
}

// Add records that the document of kind was admitted for version without a finding.
func (s *Store) Add(version, kind, doc string) {
	if s == nil {
		return
	}
	d := digestOf(version, kind, doc)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.load()
	if s.known[d] || len(s.known) >= MaxEntries {
		return
	}
	s.known[d] = true
	if s.broken {
		return
	}
	if s.out == nil {
		if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
			s.broken = true
			return
		}
		if !s.recorded {
			removeStale(filepath.Dir(s.path), s.path, time.Now())
		}
		f, err := os.OpenFile(s.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err != nil {
			s.broken = true
			return
		}
		s.out = f
	}
	// One write per entry: appends of concurrent processes do not interleave within a line,
	// and a line cut short by a crash is skipped when read.
	if _, err := s.out.WriteString(hex.EncodeToString(d[:]) + "\n"); err != nil {
		s.broken = true
	}
}

// Close closes the file the store appends to (a process's stores live until it exits; tests
// close theirs).
func (s *Store) Close() error {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.out == nil {
		return nil
	}
	err := s.out.Close()
	s.out, s.broken = nil, true
	return err
}

// load reads the file once (s.mu held). Lines that are not a digest are skipped.
func (s *Store) load() {
	if s.loaded {
		return
	}
	s.loaded = true
	s.known = map[digest]bool{}
	f, err := os.Open(s.path)
	if err != nil {
		return
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() && len(s.known) < MaxEntries {
		line := sc.Text()
		if len(line) != 2*len(digest{}) {
			continue
		}
		var d digest
		if _, err := hex.Decode(d[:], []byte(line)); err != nil {
			continue
		}
		s.known[d] = true
	}
}

// removeStale removes the files of other builds that took no new entry for staleAfter.
func removeStale(dir, keep string, now time.Time) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		name := e.Name()
		p := filepath.Join(dir, name)
		if !strings.HasPrefix(name, prefix) || !strings.HasSuffix(name, suffix) || p == keep {
			continue
		}
		if fi, err := e.Info(); err == nil && now.Sub(fi.ModTime()) > staleAfter {
			_ = os.Remove(p)
		}
	}
}
