package settings

import (
	"fmt"
	"time"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
	"github.com/nodeplane/terraform-provider-karpenter/internal/reservations"
)

// ParseCapacityBlockHorizon reads a capacity_block_horizon: a Go duration (time.ParseDuration,
// such as `24h`, `90m` or `2h30m`) greater than zero.
func ParseCapacityBlockHorizon(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	switch {
	case err != nil:
		return 0, fmt.Errorf("%q is not a Go duration such as 24h, 90m or 2h30m", s)
	case d <= 0:
		return 0, fmt.Errorf("%q is not longer than zero: the horizon is how far ahead of the plan a Capacity Block's end is a warning", s)
	}
	return d, nil
}

// Horizon is the capacity_block_horizon the plans look ahead with: reservations.DefaultHorizon
// when the setting is unset (or empty, which the schema refuses) or known only after apply; a value ParseCapacityBlockHorizon
// refuses is an error on the attribute.
func (cfg ProviderConfig) Horizon() (time.Duration, []attrpath.Finding) {
	h := cfg.CapacityBlockHorizon
	if h.Null || h.Unknown || h.Value == "" {
		return reservations.DefaultHorizon, nil
	}
	d, err := ParseCapacityBlockHorizon(h.Value)
	if err != nil {
		return reservations.DefaultHorizon, []attrpath.Finding{{Path: attrpath.Of("capacity_block_horizon"),
			Summary: "Invalid capacity_block_horizon", Message: err.Error()}}
	}
	return d, nil
}
