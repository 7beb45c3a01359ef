package planner

import "github.com/nodeplane/terraform-provider-karpenter/internal/fleet"

// The apply stage's (internal/fleet) values that cross the planner's API, named here so that
// the provider's shell reaches the stage only through the planner.
type (
	// ProfileIAM is what a class's instance profiles ask of IAM (ClassPorts.Profiles).
	ProfileIAM = fleet.ProfileAPI
	// ClassProfile is what the instance-profile stage reads of a class: its name, `role` or
	// `instance_profile`, owner id and the profile its state records.
	ClassProfile = fleet.ClassProfile
	// TemplateRecord is one `launch_templates` entry a pool's state records.
	TemplateRecord = fleet.TemplateRecord
	// Node is one `nodes` entry of a static pool.
	Node = fleet.Node
	// PoolRecord is what a pool's state records of its EC2 objects (RefreshPool).
	PoolRecord = fleet.PoolRecord
	// Refreshed is what a refresh finds of them (RefreshPool).
	Refreshed = fleet.Refreshed
)

// NewOwnerID draws a fresh owner id, as apply gives a new class or pool (fleet.NewOwnerID).
func NewOwnerID() string { return fleet.NewOwnerID() }
