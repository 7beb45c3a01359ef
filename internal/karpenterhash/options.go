package karpenterhash

import (
	"strconv"

	"github.com/mitchellh/hashstructure/v2"
)

// hash returns v's hash with the options both Karpenter drift hashes use, in decimal as
// Karpenter writes it. The options are built per call: hashstructure stores its hasher in them.
func hash(v any) (string, error) {
	h, err := hashstructure.Hash(v, hashstructure.FormatV2, &hashstructure.HashOptions{
		SlicesAsSets:    true,
		IgnoreZeroValue: true,
		ZeroNil:         true,
	})
	if err != nil {
		return "", err
	}
	return strconv.FormatUint(h, 10), nil
}
