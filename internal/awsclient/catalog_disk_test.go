package awsclient

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/nodeplane/terraform-provider-karpenter/internal/acctest"
	"github.com/nodeplane/terraform-provider-karpenter/internal/catalog"
)

func diskKey(account string) catalogKey {
	return catalogKey{endpoint: "http://127.0.0.1:4566", region: "ap-southeast-1", account: account}
}

// A second provider process (a new catalog load with the same key) reads the file instead of
// EC2, and gets the same catalog: every type field and zone (labels are derived from those).
func TestCatalogDiskSecondProcessReadsFile(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	disk := &CatalogDisk{Dir: t.TempDir(), TTL: time.Hour, now: func() time.Time { return now }}
	f := newCatalogFake(250, 100, 300)

	cold, err := loadThroughDisk(ctx, disk, diskKey("000000000000"), f)
	if err != nil {
		t.Fatal(err)
	}
	coldTypes, coldOffers := catalogCalls(f)
	if coldTypes != 3 || coldOffers == 0 {
		t.Fatalf("cold load: %d type calls, %d offering calls", coldTypes, coldOffers)
	}
	files, _ := filepath.Glob(filepath.Join(disk.Dir, "catalog-*.gob"))
	if len(files) != 1 {
		t.Fatalf("want one cache file, got %v", files)
	}

	now = now.Add(59 * time.Minute)
	warm, err := loadThroughDisk(ctx, disk, diskKey("000000000000"), f)
	if err != nil {
		t.Fatal(err)
	}
	if types, offers := catalogCalls(f); types != coldTypes || offers != coldOffers {
		t.Errorf("warm load called EC2: %d type calls, %d offering calls in total", types, offers)
	}
	if warm.Len() != cold.Len() || !reflect.DeepEqual(warm.Zones(), cold.Zones()) {
		t.Fatalf("warm catalog: %d types, zones %v; cold: %d, %v", warm.Len(), warm.Zones(), cold.Len(), cold.Zones())
	}
	for i, ct := range cold.Types() {
		wt := warm.Types()[i]
		if !reflect.DeepEqual(*wt, *ct) {
			t.Fatalf("type %d differs:\n warm %+v\n cold %+v", i, *wt, *ct)
		}
	}
}

func TestCatalogDiskReloads(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name string
		// between runs between the first (cold) load and the second.
		between func(t *testing.T, disk *CatalogDisk)
		key     catalogKey
	}{
		{"expired", func(_ *testing.T, d *CatalogDisk) { now = now.Add(d.TTL) }, diskKey("000000000000")},
		{"written in the future (clock moved back)", func(*testing.T, *CatalogDisk) { now = now.Add(-time.Minute) }, diskKey("000000000000")},
		{"another account", func(*testing.T, *CatalogDisk) {}, diskKey("111111111111")},
		{"corrupt file", func(t *testing.T, d *CatalogDisk) {
			if err := os.WriteFile(d.path(diskKey("000000000000")), []byte("not gob"), 0o600); err != nil {
				t.Fatal(err)
			}
		}, diskKey("000000000000")},
		{"file of an older format", func(t *testing.T, d *CatalogDisk) {
			p := d.path(diskKey("000000000000"))
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			// Same key fields but truncated: gob fails to decode; stands for any foreign file.
			if err := os.WriteFile(p, b[:len(b)/2], 0o600); err != nil {
				t.Fatal(err)
			}
		}, diskKey("000000000000")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			now = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
			disk := &CatalogDisk{Dir: t.TempDir(), TTL: time.Hour, now: func() time.Time { return now }}
			f := newCatalogFake(120, 100, 1000)
			if _, err := loadThroughDisk(ctx, disk, diskKey("000000000000"), f); err != nil {
				t.Fatal(err)
			}
			first, _ := catalogCalls(f)
			tc.between(t, disk)
			cat, err := loadThroughDisk(ctx, disk, tc.key, f)
			if err != nil || cat.Len() != 120 {
				t.Fatalf("reload: %v, %v", cat, err)
			}
			if types, _ := catalogCalls(f); types != 2*first {
				t.Errorf("want a second load from EC2 (%d type calls in total), got %d", 2*first, types)
			}
			// The reload rewrote the file: a third load reads it.
			if _, err := loadThroughDisk(ctx, disk, tc.key, f); err != nil {
				t.Fatal(err)
			}
			if types, _ := catalogCalls(f); types != 2*first {
				t.Errorf("the reload did not refresh the cache: %d type calls after a third load", types)
			}
		})
	}
}

func TestCatalogDiskDisabledOrUnwritable(t *testing.T) {
	ctx := context.Background()
	blocked := filepath.Join(t.TempDir(), "a-file")
	if err := os.WriteFile(blocked, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for name, disk := range map[string]*CatalogDisk{
		"nil":               nil,
		"zero TTL":          {Dir: t.TempDir()},
		"no directory":      {TTL: time.Hour},
		"directory is file": {Dir: filepath.Join(blocked, "sub"), TTL: time.Hour},
	} {
		t.Run(name, func(t *testing.T) {
			f := newCatalogFake(120, 100, 1000)
			for range 2 {
				if cat, err := loadThroughDisk(ctx, disk, diskKey("000000000000"), f); err != nil || cat.Len() != 120 {
					t.Fatalf("%v, %v", cat, err)
				}
			}
			if types, _ := catalogCalls(f); types != 4 {
				t.Errorf("want two loads from EC2 (4 type calls), got %d", types)
			}
		})
	}
}

// A client whose key is not shared (no account id, or not the SDK's EC2 client) never uses
// the disk: the file would be keyed by nothing that identifies the catalog.
func TestCatalogDiskNeedsSharedKey(t *testing.T) {
	dir := t.TempDir()
	f := newCatalogFake(120, 100, 1000)
	c := newTestClient(f)
	c.CatalogDisk = &CatalogDisk{Dir: dir, TTL: time.Hour}
	if _, err := c.Catalog(context.Background()); err != nil {
		t.Fatal(err)
	}
	if files, _ := filepath.Glob(filepath.Join(dir, "*")); len(files) != 0 {
		t.Errorf("files written for an unshared key: %v", files)
	}
}

// Against LocalStack: the real catalog (1,000+ types) survives the file round trip, keyed by a
// real SDK client's endpoint, region and account, and the second load makes no EC2 call.
func TestAccCatalogDiskRoundTrip(t *testing.T) {
	if os.Getenv("TF_ACC") == "" {
		t.Skip("acceptance test: set TF_ACC=1 and run LocalStack (make localstack-up)")
	}
	acctest.PreCheck(t)
	ctx := acctest.Context(t)
	disk := &CatalogDisk{Dir: t.TempDir(), TTL: time.Hour}
	c, err := New(ctx, Settings{Region: acctest.Region(), EC2Endpoint: acctest.Endpoint(), STSEndpoint: acctest.Endpoint(),
		AccessKey: "test", SecretKey: "test", CatalogCache: disk})
	if err != nil {
		t.Fatal(err)
	}
	key := catalogKeyFor(c)
	if key.account == "" || key.endpoint == "" {
		t.Fatalf("key %+v: want endpoint and account", key)
	}
	cold, err := loadThroughDisk(ctx, disk, key, c.EC2)
	if err != nil {
		t.Fatal(err)
	}
	before := c.Calls.Snapshot()
	warm, err := loadThroughDisk(ctx, disk, key, c.EC2)
	if err != nil {
		t.Fatal(err)
	}
	if after := c.Calls.Snapshot(); !reflect.DeepEqual(after, before) {
		t.Errorf("the warm load called EC2: %v -> %v", before, after)
	}
	if cold.Len() < 500 || warm.Len() != cold.Len() {
		t.Fatalf("cold %d types, warm %d", cold.Len(), warm.Len())
	}
	for i, ct := range cold.Types() {
		if wt := warm.Types()[i]; !reflect.DeepEqual(*wt, *ct) {
			t.Fatalf("%s differs after the round trip:\n warm %+v\n cold %+v", ct.Name, *wt, *ct)
		}
	}
}

// typeSignature spells out a struct's fields and their types, recursively.
func typeSignature(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Struct:
		s := t.Name() + "{"
		for i := range t.NumField() {
			f := t.Field(i)
			s += f.Name + " " + typeSignature(f.Type) + ";"
		}
		return s + "}"
	case reflect.Slice:
		return "[]" + typeSignature(t.Elem())
	case reflect.Map:
		return "map[" + typeSignature(t.Key()) + "]" + typeSignature(t.Elem())
	case reflect.Pointer:
		return "*" + typeSignature(t.Elem())
	default:
		return t.Kind().String()
	}
}

// Cache files hold catalog.InstanceType as gob. A change to that struct must come with a new
// catalogFileVersion, or processes would read old files into the new shape (gob fills what
// matches and leaves new fields zero). This test pins the shape of the current version.
func TestCatalogFileVersionMatchesInstanceTypeShape(t *testing.T) {
	sum := sha256.Sum256([]byte(typeSignature(reflect.TypeFor[catalog.InstanceType]())))
	// Version 2 added the processor features, Nitro Enclaves support and placement strategies;
	// version 3 dropped the derived network bandwidth (the label reads Karpenter's table).
	const version3Shape = "65ad7bdfa974d46a"
	if got := hex.EncodeToString(sum[:8]); catalogFileVersion != 3 || got != version3Shape {
		t.Fatalf("catalog.InstanceType has shape %s (catalogFileVersion %d); version 3 was %s: bump catalogFileVersion and pin the new shape here",
			got, catalogFileVersion, version3Shape)
	}
}
