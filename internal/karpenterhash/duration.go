package karpenterhash

import (
	"bytes"
	"encoding/json"
	"time"
)

// Never is the NillableDuration value that disables a duration (expireAfter: Never).
const Never = "Never"

// NillableDuration mirrors karpenter.sh/v1 NillableDuration: a duration that may be "Never"
// (nil). Raw keeps the JSON it was decoded from and is not hashed; only the duration is.
type NillableDuration struct {
	*time.Duration

	Raw []byte `hash:"ignore"`
}

// UnmarshalJSON reads a JSON string: "Never" leaves the duration nil, anything else must parse
// with time.ParseDuration.
func (d *NillableDuration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	if s == Never {
		return nil
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return err
	}
	d.Duration = &v
	d.Raw = bytes.Clone(b)
	return nil
}

// MarshalJSON writes Raw when it is set, otherwise the duration as a string, or "Never".
func (d NillableDuration) MarshalJSON() ([]byte, error) {
	switch {
	case d.Raw != nil:
		return d.Raw, nil
	case d.Duration != nil:
		return json.Marshal(d.String())
	default:
		return json.Marshal(Never)
	}
}

// ParseNillableDuration returns the NillableDuration that Karpenter decodes from the string s
// ("Never" or a Go duration such as "720h").
func ParseNillableDuration(s string) (NillableDuration, error) {
	var d NillableDuration
	b, err := json.Marshal(s)
	if err != nil {
		return d, err
	}
	err = d.UnmarshalJSON(b)
	return d, err
}
