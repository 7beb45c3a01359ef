package awsclient

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/gob"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/nodeplane/terraform-provider-karpenter/internal/catalog"
)

// DefaultCatalogCacheTTL is how long a catalog written to disk is used before EC2 is asked again.
const DefaultCatalogCacheTTL = time.Hour

// catalogFileVersion changes whenever catalog.InstanceType or the conversion from the SDK shape
// changes meaning; files of another version are ignored (and overwritten).
const catalogFileVersion = 3

// CatalogDisk keeps the converted instance-type catalog in a file per (EC2 endpoint, region,
// account), so that the provider processes of one workflow (terraform plan, then apply, then
// the next plan) read DescribeInstanceTypes and DescribeInstanceTypeOfferings once per TTL
// instead of once each. Reading it costs milliseconds; the two listings take seconds (about
// 15 pages of DescribeInstanceTypes on AWS). It also keeps plan and apply on the same catalog.
//
// The cache is advisory: a missing, expired, unreadable or foreign file means a normal load
// from EC2, and a failed write only loses the speed-up.
type CatalogDisk struct {
	Dir string
	TTL time.Duration
	now func() time.Time // tests
}

// catalogFile is what a cache file holds.
type catalogFile struct {
	Version                   int
	Endpoint, Region, Account string
	Written                   time.Time
	Types                     []catalog.InstanceType
}

func (d *CatalogDisk) enabled() bool { return d != nil && d.TTL > 0 && d.Dir != "" }

func (d *CatalogDisk) clock() time.Time {
	if d.now != nil {
		return d.now()
	}
	return time.Now()
}

// path is the file of one key: a hash, so that endpoints and account ids never become paths.
func (d *CatalogDisk) path(k catalogKey) string {
	sum := sha256.Sum256(fmt.Appendf(nil, "%d\x00%s\x00%s\x00%s", catalogFileVersion, k.endpoint, k.region, k.account))
	return filepath.Join(d.Dir, "catalog-"+hex.EncodeToString(sum[:12])+".gob")
}

// read returns the cached types of k when a fresh file of this version and key exists.
func (d *CatalogDisk) read(ctx context.Context, k catalogKey) ([]catalog.InstanceType, bool) {
	p := d.path(k)
	b, err := os.ReadFile(p)
	if err != nil {
		if !errors.Is(err, os.ErrNotExist) {
			tflog.Debug(ctx, "instance-type catalog cache unreadable", map[string]any{"path": p, "error": err.Error()})
		}
		return nil, false
	}
	var f catalogFile
	if err := gob.NewDecoder(bytes.NewReader(b)).Decode(&f); err != nil {
		tflog.Debug(ctx, "instance-type catalog cache corrupt, reloading from EC2", map[string]any{"path": p, "error": err.Error()})
		return nil, false
	}
	age := d.clock().Sub(f.Written)
	switch {
	case f.Version != catalogFileVersion || f.Endpoint != k.endpoint || f.Region != k.region || f.Account != k.account:
		tflog.Debug(ctx, "instance-type catalog cache belongs to another version or key, reloading from EC2", map[string]any{"path": p})
		return nil, false
	case age < 0 || age >= d.TTL || len(f.Types) == 0:
		tflog.Debug(ctx, "instance-type catalog cache expired, reloading from EC2", map[string]any{"path": p, "age": age.String()})
		return nil, false
	}
	tflog.Debug(ctx, "instance-type catalog from the disk cache", map[string]any{"path": p, "age": age.Round(time.Second).String(), "types": len(f.Types)})
	return f.Types, true
}

// write stores types for k atomically (temporary file, then rename), so that concurrent
// provider processes never read half a file.
func (d *CatalogDisk) write(ctx context.Context, k catalogKey, types []catalog.InstanceType) {
	p := d.path(k)
	var buf bytes.Buffer
	err := gob.NewEncoder(&buf).Encode(catalogFile{Version: catalogFileVersion, Endpoint: k.endpoint, Region: k.region,
		Account: k.account, Written: d.clock(), Types: types})
	if err == nil {
		err = writeFileAtomic(p, buf.Bytes())
	}
	if err != nil {
		tflog.Debug(ctx, "instance-type catalog cache not written", map[string]any{"path": p, "error": err.Error()})
		return
	}
	tflog.Debug(ctx, "instance-type catalog written to the disk cache", map[string]any{"path": p, "types": len(types), "bytes": buf.Len()})
}

func writeFileAtomic(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".catalog-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // no-op after a successful rename
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
