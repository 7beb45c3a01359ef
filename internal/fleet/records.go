package fleet

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// The records below are what the stage reads and asks of EC2 and IAM. The stage owns them: the
// AWS adapter (internal/awsclient) implements the stage's interfaces with them, so the arrow
// runs adapter → stage and the stage holds no AWS code.

// LaunchTemplate is a template as it exists in EC2.
type LaunchTemplate struct {
	ID             string
	Name           string
	DefaultVersion int64
	Tags           map[string]string
	// Fingerprint is a hash of the default version's data in launchplan's canonical form, so
	// content changed outside Terraform shows as a difference.
	Fingerprint string
}

// Instance is an EC2 instance as static capacity tracks it.
type Instance struct {
	ID             string
	Type           string
	Zone           string
	SubnetID       string
	PrivateIP      string
	CapacityType   string // on-demand or spot
	LaunchTemplate string // name, from the provider's own tag (the template's instance tags)
	// Fingerprint is the content fingerprint of the template version the instance was launched
	// with (tag written by the template); "" for instances launched before the tag existed.
	Fingerprint string
	State       string
	LaunchTime  time.Time
	Tags        map[string]string // all of its tags
}

// Live reports whether the instance counts toward a pool's replicas.
func (i Instance) Live() bool { return i.State == "pending" || i.State == "running" }

// Override is one CreateFleet override.
type Override struct {
	LaunchTemplateID string
	InstanceType     string
	SubnetID         string
	Zone             string
	ImageID          string
	Priority         float64 // the offering's hourly price, as Karpenter sets it
}

// LaunchRequest is one instant fleet.
type LaunchRequest struct {
	Overrides    []Override // in launch order; grouped per launch template in the request
	Count        int
	CapacityType string // on-demand or spot
	Tags         map[string]string
	ClientToken  string
}

// FleetError is one per-override failure that CreateFleet reported.
type FleetError struct {
	Code, Message, InstanceType, SubnetID string
	// Cause is what the adapter read the code as; the stage acts on it.
	Cause FleetCause
}

// FleetCause is the meaning of a CreateFleet error the stage acts on.
type FleetCause int

const (
	CauseOther FleetCause = iota
	// CauseProfileNotVisible: EC2 does not see the instance profile's name yet, as for an IAM
	// profile created moments ago until IAM's change propagates (Karpenter's
	// IsInstanceProfileNotFound).
	CauseProfileNotVisible
	// CauseNoFreeAddresses: the subnet had no address left for the instance.
	CauseNoFreeAddresses
)

func (e FleetError) Error() string {
	return fmt.Sprintf("%s (%s in %s): %s", e.Code, e.InstanceType, e.SubnetID, e.Message)
}

// InstanceProfileNotVisible reports whether EC2 refused the launch for the instance profile.
func (e FleetError) InstanceProfileNotVisible() bool { return e.Cause == CauseProfileNotVisible }

// InsufficientFreeAddresses reports whether the subnet had no address left for the instance.
func (e FleetError) InsufficientFreeAddresses() bool { return e.Cause == CauseNoFreeAddresses }

// InstanceProfile is an instance profile as IAM shows it.
type InstanceProfile struct {
	Name, Path, ARN string
	Roles           []string
	Tags            map[string]string
}

// Owned reports whether the profile carries every ownership tag (key and value).
func (p InstanceProfile) Owned(own map[string]string) bool {
	if len(own) == 0 {
		return false
	}
	for k, v := range own {
		if got, ok := p.Tags[k]; !ok || got != v {
			return false
		}
	}
	return true
}

// ProfileSpec is what ProfileAPI.Ensure makes IAM hold.
type ProfileSpec struct {
	Name, Path, Role string
	// Tags are written on creation; Own (a subset of Tags) marks the profile as the caller's.
	Tags, Own map[string]string
}

// ErrRoleNotFound is returned (wrapped) when the role of an instance profile does not exist.
var ErrRoleNotFound = errors.New("IAM role not found")

// NotOwnedError refuses to change or delete an instance profile that does not carry the
// caller's ownership tags: another owner's, or one created outside the provider.
type NotOwnedError struct {
	Name string
	Tags map[string]string // the tags the profile carries
}

func (e *NotOwnedError) Error() string {
	return fmt.Sprintf("instance profile %s exists and is not this resource's (it lacks its ownership tags); it is left as it is", e.Name)
}

// Sleep waits for d, or until ctx is done (then its error): the waits between attempts that
// AWS's eventual consistency needs.
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
