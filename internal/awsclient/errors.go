package awsclient

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/aws/smithy-go"
	"github.com/nodeplane/terraform-provider-karpenter/internal/fleet"
)

// Every AWS error code the provider acts on, in one place; code elsewhere asks the predicates
// below instead of comparing codes or messages.
const (
	ErrCodeInvalidSubnetIDNotFound     = "InvalidSubnetID.NotFound"
	ErrCodeInvalidGroupNotFound        = "InvalidGroup.NotFound"
	ErrCodeInvalidParameterValue       = "InvalidParameterValue"
	ErrCodeInsufficientFreeAddresses   = "InsufficientFreeAddressesInSubnet"
	ErrCodeInstanceIDNotFound          = "InvalidInstanceID.NotFound"
	ErrCodeLaunchTemplateNameNotFound  = "InvalidLaunchTemplateName.NotFoundException"
	ErrCodeLaunchTemplateIDNotFound    = "InvalidLaunchTemplateId.NotFound"
	ErrCodeLaunchTemplateMalformed     = "InvalidLaunchTemplateId.Malformed"
	ErrCodeLaunchTemplateExists        = "InvalidLaunchTemplateName.AlreadyExistsException"
	ErrCodeCapacityReservationNotFound = "InvalidCapacityReservationId.NotFound"
	ErrCodePlacementGroupUnknown       = "InvalidPlacementGroup.Unknown"
	ErrCodePlacementGroupIDNotFound    = "InvalidPlacementGroupId.NotFound"
	ErrCodeNoSuchEntity                = "NoSuchEntity"        // IAM
	ErrCodeEntityAlreadyExists         = "EntityAlreadyExists" // IAM
	ErrCodeResourceNotFound            = "ResourceNotFoundException"
	ErrCodeAccessDeniedException       = "AccessDeniedException"
	ErrCodeAccessDenied                = "AccessDenied"
)

// retryableCodes are retried on top of the SDK's throttling and transient defaults: EC2's
// documented eventual-consistency codes right after a create (the *.NotFound ones are scoped by
// retryPolicy in client.go: not on deletes, and for a few attempts only).
var retryableCodes = map[string]struct{}{
	"RequestLimitExceeded":          {},
	"Unavailable":                   {},
	"InternalError":                 {},
	ErrCodeLaunchTemplateIDNotFound: {},
	ErrCodeInstanceIDNotFound:       {},
}

// ErrCode returns the API error code of err, or "".
func ErrCode(err error) string {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		return ae.ErrorCode()
	}
	return ""
}

// IsCode reports whether err is an AWS API error with one of codes.
func IsCode(err error, codes ...string) bool {
	c := ErrCode(err)
	return c != "" && slices.Contains(codes, c)
}

// ErrNotFound marks a lookup that found nothing; every NotFoundError is one (errors.Is).
var ErrNotFound = errors.New("not found")

// NotFoundError is a finder's answer for an object that does not exist: its kind and id, and
// the API error that said so (nil when the API answered with an empty list).
type NotFoundError struct {
	Kind, ID string
	Err      error
}

func (e *NotFoundError) Error() string { return fmt.Sprintf("%s %s not found", e.Kind, e.ID) }

// Unwrap is the API error, when there was one.
func (e *NotFoundError) Unwrap() error { return e.Err }

// Is makes every NotFoundError match ErrNotFound.
func (e *NotFoundError) Is(target error) bool { return target == ErrNotFound }

// IsNotFound reports whether err says an object does not exist: a finder's NotFoundError or an
// API error whose code says so (EC2's *.NotFound, IAM's NoSuchEntity, EKS's
// ResourceNotFoundException, the launch template and placement group variants).
func IsNotFound(err error) bool {
	if errors.Is(err, ErrNotFound) {
		return true
	}
	c := ErrCode(err)
	return strings.HasSuffix(c, ".NotFound") || strings.HasSuffix(c, ".NotFoundException") ||
		IsCode(err, ErrCodeNoSuchEntity, ErrCodeResourceNotFound, ErrCodePlacementGroupUnknown, ErrCodeLaunchTemplateMalformed)
}

// IsAlreadyExists reports whether a create found the object there already.
func IsAlreadyExists(err error) bool {
	return IsCode(err, ErrCodeEntityAlreadyExists, ErrCodeLaunchTemplateExists)
}

// IsAccessDenied reports whether the credentials may not make the call.
func IsAccessDenied(err error) bool {
	return IsCode(err, ErrCodeAccessDeniedException, ErrCodeAccessDenied, "UnauthorizedOperation")
}

// fleetCause reads a CreateFleet error code as what the apply stage acts on.
func fleetCause(code, message string) fleet.FleetCause {
	switch {
	case code == ErrCodeInvalidParameterValue && strings.Contains(message, "Invalid IAM Instance Profile name"):
		return fleet.CauseProfileNotVisible
	case code == ErrCodeInsufficientFreeAddresses:
		return fleet.CauseNoFreeAddresses
	}
	return fleet.CauseOther
}
