package discovery

import (
	"context"
	"errors"
	"slices"
	"strings"
)

// Image is what discovery keeps of an EC2 image (DescribeImages).
type Image struct {
	ID      string
	Name    string
	OwnerID string
	// Architecture is EC2's value: x86_64, arm64, i386, x86_64_mac, arm64_mac.
	Architecture string
	// CreationDate and DeprecationTime are RFC 3339 timestamps; DeprecationTime is "" when the
	// image has no deprecation scheduled.
	CreationDate    string
	DeprecationTime string
}

// ImageQuery is one DescribeImages call. Like Karpenter's it asks for available images only and
// includes deprecated ones (the resolver ranks them last).
type ImageQuery struct {
	IDs     []string // the image-id filter: an id that does not exist yields no image, not an error
	Owners  []string // empty: any owner
	Filters FilterSet
}

// Key is a stable text form of the query, for caching answers.
func (q ImageQuery) Key() string {
	ids, owners := slices.Clone(q.IDs), slices.Clone(q.Owners)
	slices.Sort(ids)
	slices.Sort(owners)
	return "ids=" + strings.Join(ids, ",") + ";owners=" + strings.Join(owners, ",") + ";" + q.Filters.Key()
}

// ErrParameterNotFound is ImageAPI.GetParameter's answer for a parameter that does not exist.
var ErrParameterNotFound = errors.New("SSM parameter not found")

// ImageAPI is what AMI resolution asks AWS.
type ImageAPI interface {
	FindImages(ctx context.Context, q ImageQuery) ([]Image, error)
	// GetParameter reads one SSM parameter's value; ErrParameterNotFound (wrapped or not) when
	// it does not exist.
	GetParameter(ctx context.Context, name string) (string, error)
}
