package awsfake

import (
	"context"
	"fmt"
	"slices"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	iamtypes "github.com/aws/aws-sdk-go-v2/service/iam/types"
)

// IAM is the fake IAM API: every call of awsclient.IAMAPI, on the roles and instance profiles it
// holds, with IAM's typed errors: NoSuchEntity for a role or profile it does not hold,
// EntityAlreadyExists for a taken profile name, LimitExceeded for a second role on a profile,
// DeleteConflict for deleting a profile that still has a role. Roles are found by name (a role
// path is the caller's to drop).
//
// NewProfileLag is IAM's eventual consistency: a profile created through the fake stays
// invisible to that many of the calls that read it (GetInstanceProfile,
// AddRoleToInstanceProfile), which answer NoSuchEntity meanwhile.
type IAM struct {
	Roles            []iamtypes.Role
	InstanceProfiles []iamtypes.InstanceProfile
	NewProfileLag    int
	// Policies are the roles' managed and inline policies (iam_policies.go).
	Policies RolePolicies
	// PageSize bounds the pages of a listing ("ListAttachedRolePolicies": 1).
	PageSize map[string]int

	// Fail makes an operation ("GetRole") answer the error, every call.
	Fail map[string]error
	// FailNext queues errors for the next calls of an operation, one per call.
	FailNext map[string][]error
	// Hook sees every call first (see Hook).
	Hook Hook

	recorder
	hidden map[string]int // profile name -> reads it stays invisible to
}

func (f *IAM) levers() levers { return levers{fail: f.Fail, failNext: f.FailNext, hook: f.Hook} }

func noSuchEntity(format string, args ...any) error {
	return &iamtypes.NoSuchEntityException{Message: aws.String(fmt.Sprintf(format, args...))}
}

// profile is the index of the named profile, or -1. A read (visible) meets the profile's lag.
func (f *IAM) profile(name string, read bool) int {
	i := slices.IndexFunc(f.InstanceProfiles, func(p iamtypes.InstanceProfile) bool { return aws.ToString(p.InstanceProfileName) == name })
	if i >= 0 && read && f.hidden[name] > 0 {
		f.hidden[name]--
		return -1
	}
	return i
}

func (f *IAM) role(name string) int {
	return slices.IndexFunc(f.Roles, func(r iamtypes.Role) bool { return aws.ToString(r.RoleName) == name })
}

// GetRole answers the role.
func (f *IAM) GetRole(ctx context.Context, in *iam.GetRoleInput, _ ...func(*iam.Options)) (*iam.GetRoleOutput, error) {
	return serve(ctx, &f.recorder, f.levers(), "GetRole", in, func(in *iam.GetRoleInput) (*iam.GetRoleOutput, error) {
		i := f.role(aws.ToString(in.RoleName))
		if i < 0 {
			return nil, noSuchEntity("The role with name %s cannot be found.", aws.ToString(in.RoleName))
		}
		r := f.Roles[i]
		return &iam.GetRoleOutput{Role: &r}, nil
	})
}

// GetInstanceProfile answers the profile, with its roles and tags.
func (f *IAM) GetInstanceProfile(ctx context.Context, in *iam.GetInstanceProfileInput, _ ...func(*iam.Options)) (*iam.GetInstanceProfileOutput, error) {
	return serve(ctx, &f.recorder, f.levers(), "GetInstanceProfile", in, func(in *iam.GetInstanceProfileInput) (*iam.GetInstanceProfileOutput, error) {
		i := f.profile(aws.ToString(in.InstanceProfileName), true)
		if i < 0 {
			return nil, noSuchEntity("Instance Profile %s cannot be found.", aws.ToString(in.InstanceProfileName))
		}
		p := f.InstanceProfiles[i]
		p.Roles, p.Tags = slices.Clone(p.Roles), slices.Clone(p.Tags)
		return &iam.GetInstanceProfileOutput{InstanceProfile: &p}, nil
	})
}

// CreateInstanceProfile creates the profile (path "/" unless given) with the request's tags.
func (f *IAM) CreateInstanceProfile(ctx context.Context, in *iam.CreateInstanceProfileInput, _ ...func(*iam.Options)) (*iam.CreateInstanceProfileOutput, error) {
	return serve(ctx, &f.recorder, f.levers(), "CreateInstanceProfile", in, func(in *iam.CreateInstanceProfileInput) (*iam.CreateInstanceProfileOutput, error) {
		name := aws.ToString(in.InstanceProfileName)
		if f.profile(name, false) >= 0 {
			return nil, &iamtypes.EntityAlreadyExistsException{Message: aws.String(fmt.Sprintf("Instance Profile %s already exists.", name))}
		}
		path := aws.ToString(in.Path)
		if path == "" {
			path = "/"
		}
		now := f.clock()
		p := iamtypes.InstanceProfile{InstanceProfileName: aws.String(name), Path: aws.String(path), Tags: slices.Clone(in.Tags),
			InstanceProfileId: aws.String(f.nextID("AIPA")), Arn: aws.String("arn:aws:iam::000000000000:instance-profile" + path + name), CreateDate: &now}
		f.InstanceProfiles = append(f.InstanceProfiles, p)
		if f.NewProfileLag > 0 {
			if f.hidden == nil {
				f.hidden = map[string]int{}
			}
			f.hidden[name] = f.NewProfileLag
		}
		return &iam.CreateInstanceProfileOutput{InstanceProfile: &p}, nil
	})
}

// AddRoleToInstanceProfile adds the role to a profile that has none.
func (f *IAM) AddRoleToInstanceProfile(ctx context.Context, in *iam.AddRoleToInstanceProfileInput, _ ...func(*iam.Options)) (*iam.AddRoleToInstanceProfileOutput, error) {
	return serve(ctx, &f.recorder, f.levers(), "AddRoleToInstanceProfile", in, func(in *iam.AddRoleToInstanceProfileInput) (*iam.AddRoleToInstanceProfileOutput, error) {
		name, role := aws.ToString(in.InstanceProfileName), aws.ToString(in.RoleName)
		i := f.profile(name, true)
		if i < 0 {
			return nil, noSuchEntity("Instance Profile %s cannot be found.", name)
		}
		r := f.role(role)
		if r < 0 {
			return nil, noSuchEntity("The role with name %s cannot be found.", role)
		}
		if len(f.InstanceProfiles[i].Roles) > 0 {
			return nil, &iamtypes.LimitExceededException{Message: aws.String("Cannot exceed quota for InstanceSessionsPerInstanceProfile: 1")}
		}
		f.InstanceProfiles[i].Roles = append(f.InstanceProfiles[i].Roles, f.Roles[r])
		return &iam.AddRoleToInstanceProfileOutput{}, nil
	})
}

// RemoveRoleFromInstanceProfile removes the role from the profile.
func (f *IAM) RemoveRoleFromInstanceProfile(ctx context.Context, in *iam.RemoveRoleFromInstanceProfileInput, _ ...func(*iam.Options)) (*iam.RemoveRoleFromInstanceProfileOutput, error) {
	return serve(ctx, &f.recorder, f.levers(), "RemoveRoleFromInstanceProfile", in, func(in *iam.RemoveRoleFromInstanceProfileInput) (*iam.RemoveRoleFromInstanceProfileOutput, error) {
		name, role := aws.ToString(in.InstanceProfileName), aws.ToString(in.RoleName)
		i := f.profile(name, false)
		has := func(r iamtypes.Role) bool { return aws.ToString(r.RoleName) == role }
		if i < 0 || !slices.ContainsFunc(f.InstanceProfiles[i].Roles, has) {
			return nil, noSuchEntity("The role with name %s cannot be found in instance profile %s.", role, name)
		}
		f.InstanceProfiles[i].Roles = slices.DeleteFunc(slices.Clone(f.InstanceProfiles[i].Roles), has)
		return &iam.RemoveRoleFromInstanceProfileOutput{}, nil
	})
}

// DeleteInstanceProfile deletes a profile without roles.
func (f *IAM) DeleteInstanceProfile(ctx context.Context, in *iam.DeleteInstanceProfileInput, _ ...func(*iam.Options)) (*iam.DeleteInstanceProfileOutput, error) {
	return serve(ctx, &f.recorder, f.levers(), "DeleteInstanceProfile", in, func(in *iam.DeleteInstanceProfileInput) (*iam.DeleteInstanceProfileOutput, error) {
		name := aws.ToString(in.InstanceProfileName)
		i := f.profile(name, false)
		if i < 0 {
			return nil, noSuchEntity("Instance Profile %s cannot be found.", name)
		}
		if len(f.InstanceProfiles[i].Roles) > 0 {
			return nil, &iamtypes.DeleteConflictException{Message: aws.String("Cannot delete entity, must remove roles from instance profile first.")}
		}
		f.InstanceProfiles = slices.Delete(f.InstanceProfiles, i, i+1)
		delete(f.hidden, name)
		return &iam.DeleteInstanceProfileOutput{}, nil
	})
}

// TagInstanceProfile adds the tags to the profile, replacing the values of keys it has.
func (f *IAM) TagInstanceProfile(ctx context.Context, in *iam.TagInstanceProfileInput, _ ...func(*iam.Options)) (*iam.TagInstanceProfileOutput, error) {
	return serve(ctx, &f.recorder, f.levers(), "TagInstanceProfile", in, func(in *iam.TagInstanceProfileInput) (*iam.TagInstanceProfileOutput, error) {
		name := aws.ToString(in.InstanceProfileName)
		i := f.profile(name, false)
		if i < 0 {
			return nil, noSuchEntity("Instance Profile %s cannot be found.", name)
		}
		p := &f.InstanceProfiles[i]
		p.Tags = slices.Clone(p.Tags)
		for _, t := range in.Tags {
			if k := slices.IndexFunc(p.Tags, func(o iamtypes.Tag) bool { return aws.ToString(o.Key) == aws.ToString(t.Key) }); k >= 0 {
				p.Tags[k] = t
			} else {
				p.Tags = append(p.Tags, t)
			}
		}
		return &iam.TagInstanceProfileOutput{}, nil
	})
}
