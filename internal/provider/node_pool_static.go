package provider

import (
	"time"

	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/nodeplane/terraform-provider-karpenter/internal/fleet"
)

// Default waits of a static pool.
const (
	defaultLaunchTimeout    = 20 * time.Minute
	defaultTerminateTimeout = 20 * time.Minute
)

var nodeObjType = types.ObjectType{AttrTypes: attrTypesOf(fleet.Node{})}
