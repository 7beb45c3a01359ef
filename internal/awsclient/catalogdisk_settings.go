package awsclient

import (
	"fmt"
	"path/filepath"
	"time"
)

// Environment variables that set the catalog cache when the provider block does not.
const (
	EnvCatalogCacheDir = "KARPENTER_CATALOG_CACHE_DIR"
	EnvCatalogCacheTTL = "KARPENTER_CATALOG_CACHE_TTL"
)

// CatalogDiskFrom resolves the provider's catalog_cache: the block's directory and ttl (nil:
// not set), else the environment, else the defaults (the user's cache directory, one hour). It
// returns nil (no disk cache) for a zero TTL or when no directory can be found.
func CatalogDiskFrom(dir, ttl *string, getenv func(string) string, userCacheDir func() (string, error)) (*CatalogDisk, error) {
	d, ttlText := getenv(EnvCatalogCacheDir), getenv(EnvCatalogCacheTTL)
	ttlFrom := EnvCatalogCacheTTL
	if dir != nil {
		d = *dir
	}
	if ttl != nil {
		ttlText, ttlFrom = *ttl, "catalog_cache.ttl"
	}
	keep := DefaultCatalogCacheTTL
	if ttlText != "" {
		v, err := ParseCacheTTL(ttlText)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", ttlFrom, err)
		}
		keep = v
	}
	if keep == 0 {
		return nil, nil
	}
	if d == "" {
		base, _ := userCacheDir() // an error means no home directory: base is "" then
		if base == "" {
			return nil, nil // every process reads EC2, as without a cache
		}
		d = filepath.Join(base, "terraform-provider-karpenter")
	}
	return &CatalogDisk{Dir: d, TTL: keep}, nil
}

// ParseCacheTTL reads a cache TTL: a non-negative Go duration.
func ParseCacheTTL(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("%q is not a duration such as 30m, 6h or 0s", s)
	}
	if d < 0 {
		return 0, fmt.Errorf("%q is negative; use 0s to turn the cache off", s)
	}
	return d, nil
}
