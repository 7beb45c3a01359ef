package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
	"github.com/nodeplane/terraform-provider-karpenter/internal/tfvalue"
)

// What the data sources share: each decodes its configuration into its core query, calls the
// core's read and answers with what the read computed.

// answer reports a read's findings and, without errors, writes its result into the state (the
// configuration with the computed attributes set).
func answer(resp *datasource.ReadResponse, config tftypes.Value, out any, errs, warnings []attrpath.Finding) {
	if addFindings(&resp.Diagnostics, errs, nil); resp.Diagnostics.HasError() {
		return
	}
	addFindings(&resp.Diagnostics, nil, warnings)
	resp.State.Raw = config
	setRaw(&resp.State.Raw, out, "data source's state", &resp.Diagnostics)
}

func requireMeta(m *Meta, diags interface{ AddError(string, string) }) bool {
	if m == nil || m.Client == nil {
		diags.AddError("Provider not configured", "The karpenter provider was not configured before use; this is a bug or an earlier configuration error.")
		return false
	}
	return true
}

// known reports whether a configuration's attribute is fully known.
func known(config tftypes.Value, name string) bool {
	return tfvalue.Attributes(config)[name].IsFullyKnown()
}
