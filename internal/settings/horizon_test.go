package settings

import (
	"strings"
	"testing"
	"time"

	"github.com/nodeplane/terraform-provider-karpenter/internal/reservations"
)

func TestParseCapacityBlockHorizon(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want time.Duration
		err  string
	}{
		{"24h", 24 * time.Hour, ""},
		{"90m", 90 * time.Minute, ""},
		{"2h30m", 150 * time.Minute, ""},
		{"0s", 0, "not longer than zero"},
		{"-1h", 0, "not longer than zero"},
		{"1d", 0, "not a Go duration"},
		{"", 0, "not a Go duration"},
	} {
		got, err := ParseCapacityBlockHorizon(tc.in)
		if got != tc.want || (err == nil) != (tc.err == "") || (err != nil && !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("ParseCapacityBlockHorizon(%q) = %v, %v; want %v, %q", tc.in, got, err, tc.want, tc.err)
		}
	}
}

func TestProviderConfigHorizon(t *testing.T) {
	for _, tc := range []struct {
		name    string
		setting Setting[string]
		want    time.Duration
		errs    int
	}{
		{"unset", Setting[string]{Null: true}, reservations.DefaultHorizon, 0},
		{"unknown", Setting[string]{Unknown: true}, reservations.DefaultHorizon, 0},
		{"zero value", Setting[string]{}, reservations.DefaultHorizon, 0},
		{"set", Setting[string]{Value: "6h"}, 6 * time.Hour, 0},
		{"invalid", Setting[string]{Value: "soon"}, reservations.DefaultHorizon, 1},
	} {
		got, errs := ProviderConfig{CapacityBlockHorizon: tc.setting}.Horizon()
		if got != tc.want || len(errs) != tc.errs {
			t.Errorf("%s: %v, %v", tc.name, got, errs)
		}
		if len(errs) > 0 && (errs[0].Path.String() != "capacity_block_horizon" || errs[0].Summary != "Invalid capacity_block_horizon") {
			t.Errorf("%s: finding %+v", tc.name, errs[0])
		}
	}
}
