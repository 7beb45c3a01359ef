package provider

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"

	"github.com/nodeplane/terraform-provider-karpenter/internal/awsclient"
)

// Environment variables that set the catalog cache when the provider block does not.
const (
	envCatalogCacheDir = "KARPENTER_CATALOG_CACHE_DIR"
	envCatalogCacheTTL = "KARPENTER_CATALOG_CACHE_TTL"
)

// catalogCacheSettings resolves catalog_cache: the block's values, else the environment, else
// the defaults (the user's cache directory, one hour). It returns nil (no disk cache) for a
// zero TTL or when no directory can be found.
func catalogCacheSettings(m *catalogCacheModel, getenv func(string) string, userCacheDir func() (string, error)) (*awsclient.CatalogDisk, error) {
	dir, ttlText := getenv(envCatalogCacheDir), getenv(envCatalogCacheTTL)
	ttlFrom := envCatalogCacheTTL
	if m != nil {
		if !m.Directory.IsNull() {
			dir = m.Directory.ValueString()
		}
		if !m.TTL.IsNull() {
			ttlText, ttlFrom = m.TTL.ValueString(), "catalog_cache.ttl"
		}
	}
	ttl := awsclient.DefaultCatalogCacheTTL
	if ttlText != "" {
		d, err := parseTTL(ttlText)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", ttlFrom, err)
		}
		ttl = d
	}
	if ttl == 0 {
		return nil, nil
	}
	if dir == "" {
		base, _ := userCacheDir() // an error means no home directory: base is "" then
		if base == "" {
			return nil, nil // every process reads EC2, as without a cache
		}
		dir = filepath.Join(base, "terraform-provider-karpenter")
	}
	return &awsclient.CatalogDisk{Dir: dir, TTL: ttl}, nil
}

func parseTTL(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("%q is not a duration such as 30m, 6h or 0s", s)
	}
	if d < 0 {
		return 0, fmt.Errorf("%q is negative; use 0s to turn the cache off", s)
	}
	return d, nil
}

// durationValidator checks a known string with parseTTL at validation time, on its own path.
type durationValidator struct{}

func (durationValidator) Description(context.Context) string {
	return "a non-negative Go duration such as 30m, 6h or 0s"
}
func (v durationValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (durationValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if _, err := parseTTL(req.ConfigValue.ValueString()); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid duration", err.Error())
	}
}
