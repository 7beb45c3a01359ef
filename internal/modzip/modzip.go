// Package modzip fetches a Go module release's zip into the module cache and reads it, for the
// generators that turn Karpenter's own data (CRDs, price tables) into the provider's embedded
// data: each generated file records the release and the zip's "h1:" hash, checked here against
// what the go command reports.
package modzip

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
)

// Download fetches module@version into the module cache and returns its zip's path and h1:
// sum. Karpenter's releases may not build with this Go (the go command reports an error then):
// that is ignored as long as the zip is there. The module is added to GONOSUMDB, as some
// releases are not in the checksum database; the sum is still verified by Open.
func Download(module, version string) (zipPath, sum string, err error) {
	dir, err := os.MkdirTemp("", "modzip-")
	if err != nil {
		return "", "", err
	}
	defer func() { _ = os.RemoveAll(dir) }()
	cmd := exec.Command("go", "mod", "download", "-json", module+"@"+version)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOTOOLCHAIN=local", "GOWORK=off",
		"GONOSUMDB="+strings.Trim(os.Getenv("GONOSUMDB")+","+module, ","))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	var info struct{ Zip, Sum, Error string }
	if err := json.Unmarshal(stdout.Bytes(), &info); err != nil || info.Zip == "" || info.Sum == "" {
		return "", "", fmt.Errorf("go mod download %s@%s: no module zip (%v; %s%s)", module, version,
			errors.Join(runErr, err), info.Error, strings.TrimSpace(stderr.String()))
	}
	return info.Zip, info.Sum, nil
}

// Fetch downloads module@version (Download) and opens its zip with the hash checked: against
// wantSum when set (the hash a generator recorded), else against the go command's.
func Fetch(module, version, wantSum string) (*Zip, error) {
	path, sum, err := Download(module, version)
	if err != nil {
		return nil, err
	}
	if wantSum != "" && sum != wantSum {
		return nil, fmt.Errorf("%s@%s hashes to %s; %s was recorded", module, version, sum, wantSum)
	}
	return Open(path, sum)
}

// Zip is an opened module zip: its files by name (module@version/path) and its h1: hash.
type Zip struct {
	Sum   string
	Files map[string]*zip.File
	rc    *zip.ReadCloser
}

// Open reads the zip at path and hashes it; wantSum, when set, must match.
func Open(path, wantSum string) (*Zip, error) {
	rc, err := zip.OpenReader(path)
	if err != nil {
		return nil, err
	}
	sum, err := Hash(&rc.Reader)
	if err == nil && wantSum != "" && sum != wantSum {
		err = fmt.Errorf("hashes to %s, but go mod download reports %s", sum, wantSum)
	}
	if err != nil {
		_ = rc.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	z := &Zip{Sum: sum, Files: map[string]*zip.File{}, rc: rc}
	for _, f := range rc.File {
		z.Files[f.Name] = f
	}
	return z, nil
}

// Close releases the zip.
func (z *Zip) Close() error { return z.rc.Close() }

// Read returns the content of the file named name (module@version/path).
func (z *Zip) Read(name string) ([]byte, error) {
	f, ok := z.Files[name]
	if !ok {
		return nil, fmt.Errorf("no %s in the module zip", name)
	}
	return ReadFile(f)
}

// ReadFile returns one zip entry's content.
func ReadFile(f *zip.File) ([]byte, error) {
	rc, err := f.Open()
	if err != nil {
		return nil, err
	}
	defer func() { _ = rc.Close() }()
	return io.ReadAll(rc)
}

// Hash is the go command's "h1:" hash of a module zip (dirhash.Hash1 over the zip's files):
// the SHA-256 of the lines "<hex SHA-256 of file>  <name>\n", sorted by name, base64-encoded.
func Hash(zr *zip.Reader) (string, error) {
	files := slices.Clone(zr.File)
	slices.SortFunc(files, func(a, b *zip.File) int { return strings.Compare(a.Name, b.Name) })
	summary := sha256.New()
	for _, f := range files {
		if strings.Contains(f.Name, "\n") {
			return "", fmt.Errorf("file name %q contains a newline", f.Name)
		}
		data, err := ReadFile(f)
		if err != nil {
			return "", fmt.Errorf("%s: %w", f.Name, err)
		}
		fmt.Fprintf(summary, "%x  %s\n", sha256.Sum256(data), f.Name)
	}
	return "h1:" + base64.StdEncoding.EncodeToString(summary.Sum(nil)), nil
}
