package awsclient

import (
	"errors"
	"fmt"
	"testing"

	"github.com/aws/smithy-go"
	"github.com/nodeplane/terraform-provider-karpenter/internal/fleet"
)

func TestErrorPredicates(t *testing.T) {
	api := func(code string) error {
		return fmt.Errorf("wrapped: %w", &smithy.GenericAPIError{Code: code, Message: "m"})
	}
	for _, tc := range []struct {
		err                            error
		notFound, exists, accessDenied bool
	}{
		{api(ErrCodeNoSuchEntity), true, false, false},
		{api(ErrCodeInstanceIDNotFound), true, false, false},
		{api(ErrCodeLaunchTemplateNameNotFound), true, false, false},
		{api(ErrCodeLaunchTemplateMalformed), true, false, false},
		{api(ErrCodeResourceNotFound), true, false, false},
		{api(ErrCodePlacementGroupUnknown), true, false, false},
		{&NotFoundError{Kind: "launch template", ID: "x"}, true, false, false},
		{api(ErrCodeEntityAlreadyExists), false, true, false},
		{api(ErrCodeLaunchTemplateExists), false, true, false},
		{api(ErrCodeAccessDeniedException), false, false, true},
		{api("UnauthorizedOperation"), false, false, true},
		{api(ErrCodeInvalidParameterValue), false, false, false},
		{errors.New("plain"), false, false, false},
		{nil, false, false, false},
	} {
		if got := IsNotFound(tc.err); got != tc.notFound {
			t.Errorf("IsNotFound(%v) = %v", tc.err, got)
		}
		if got := IsAlreadyExists(tc.err); got != tc.exists {
			t.Errorf("IsAlreadyExists(%v) = %v", tc.err, got)
		}
		if got := IsAccessDenied(tc.err); got != tc.accessDenied {
			t.Errorf("IsAccessDenied(%v) = %v", tc.err, got)
		}
	}
	nf := &NotFoundError{Kind: "launch template", ID: "lt", Err: api(ErrCodeLaunchTemplateNameNotFound)}
	if !errors.Is(nf, ErrNotFound) || !IsCode(nf, ErrCodeLaunchTemplateNameNotFound) || nf.Error() != "launch template lt not found" {
		t.Errorf("NotFoundError: %v", nf)
	}
	for _, tc := range []struct {
		code, message string
		want          fleet.FleetCause
	}{
		{ErrCodeInvalidParameterValue, "Value (p) for parameter iamInstanceProfile.name is invalid. Invalid IAM Instance Profile name", fleet.CauseProfileNotVisible},
		{ErrCodeInvalidParameterValue, "other", fleet.CauseOther},
		{ErrCodeInsufficientFreeAddresses, "", fleet.CauseNoFreeAddresses},
		{"InsufficientInstanceCapacity", "", fleet.CauseOther},
	} {
		if got := fleetCause(tc.code, tc.message); got != tc.want {
			t.Errorf("fleetCause(%s, %q) = %v, want %v", tc.code, tc.message, got, tc.want)
		}
	}
}
