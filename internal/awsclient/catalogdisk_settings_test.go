package awsclient

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestCatalogDiskFrom(t *testing.T) {
	home := func() (string, error) { return "/home/u/.cache", nil }
	noHome := func() (string, error) { return "", errors.New("$HOME is not defined") }
	env := func(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }
	type block struct{ dir, ttl *string }
	s := func(v string) *string { return &v }
	for _, tc := range []struct {
		name    string
		m       block
		env     map[string]string
		home    func() (string, error)
		want    *CatalogDisk
		wantErr string
	}{
		{name: "defaults", home: home, want: &CatalogDisk{Dir: filepath.Join("/home/u/.cache", "terraform-provider-karpenter"), TTL: time.Hour}},
		{name: "environment", env: map[string]string{EnvCatalogCacheDir: "/ci/cache", EnvCatalogCacheTTL: "6h"}, home: home,
			want: &CatalogDisk{Dir: "/ci/cache", TTL: 6 * time.Hour}},
		{name: "block wins over environment", m: block{s("/tf/cache"), s("30m")}, env: map[string]string{EnvCatalogCacheDir: "/ci/cache", EnvCatalogCacheTTL: "6h"},
			home: home, want: &CatalogDisk{Dir: "/tf/cache", TTL: 30 * time.Minute}},
		{name: "partial block keeps the rest", m: block{nil, s("2h")}, env: map[string]string{EnvCatalogCacheDir: "/ci/cache"}, home: home,
			want: &CatalogDisk{Dir: "/ci/cache", TTL: 2 * time.Hour}},
		{name: "0s turns it off", m: block{nil, s("0s")}, home: home, want: nil},
		{name: "0 in the environment turns it off", env: map[string]string{EnvCatalogCacheTTL: "0"}, home: home, want: nil},
		{name: "no home directory: off", home: noHome, want: nil},
		{name: "bad ttl in the block", m: block{nil, s("an hour")}, home: home, wantErr: "catalog_cache.ttl"},
		{name: "negative ttl in the environment", env: map[string]string{EnvCatalogCacheTTL: "-1h"}, home: home, wantErr: EnvCatalogCacheTTL},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := CatalogDiskFrom(tc.m.dir, tc.m.ttl, env(tc.env), tc.home)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one naming %s", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if (got == nil) != (tc.want == nil) || (got != nil && (got.Dir != tc.want.Dir || got.TTL != tc.want.TTL)) {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}
