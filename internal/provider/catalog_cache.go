package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"

	"github.com/nodeplane/terraform-provider-karpenter/internal/awsclient"
)

// durationValidator checks a known string with awsclient.ParseCacheTTL at validation time, on its own path.
type durationValidator struct{}

func (durationValidator) Description(context.Context) string {
	return "a non-negative Go duration such as 30m, 6h or 0s"
}
func (v durationValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (durationValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if _, err := awsclient.ParseCacheTTL(req.ConfigValue.ValueString()); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid duration", err.Error())
	}
}
