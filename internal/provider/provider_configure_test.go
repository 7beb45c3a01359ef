package provider

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// providerConfigValue builds a provider config with the given top-level string/bool/number
// attributes set and the rest null; endpoints sets the nested ec2/sts endpoint.
func providerConfigValue(t *testing.T, p provider.Provider, attrs map[string]any, stsEndpoint string) tfsdk.Config {
	t.Helper()
	ctx := context.Background()
	var sresp provider.SchemaResponse
	p.Schema(ctx, provider.SchemaRequest{}, &sresp)
	objType := sresp.Schema.Type().TerraformType(ctx).(tftypes.Object)
	vals := map[string]tftypes.Value{}
	for name, typ := range objType.AttributeTypes {
		vals[name] = tftypes.NewValue(typ, nil)
	}
	for k, v := range attrs {
		vals[k] = tftypes.NewValue(objType.AttributeTypes[k], v)
	}
	if stsEndpoint != "" {
		et := objType.AttributeTypes["endpoints"].(tftypes.Object)
		vals["endpoints"] = tftypes.NewValue(et, map[string]tftypes.Value{
			"ec2": tftypes.NewValue(tftypes.String, stsEndpoint),
			"sts": tftypes.NewValue(tftypes.String, stsEndpoint),
			"ssm": tftypes.NewValue(tftypes.String, nil),
			"iam": tftypes.NewValue(tftypes.String, nil),
		})
	}
	return tfsdk.Config{Schema: sresp.Schema, Raw: tftypes.NewValue(objType, vals)}
}

// isolateAWSEnv clears the variables that would let the SDK find a region or credentials.
func isolateAWSEnv(t *testing.T) {
	for _, k := range []string{"AWS_REGION", "AWS_DEFAULT_REGION", "AWS_PROFILE", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY",
		"AWS_SESSION_TOKEN", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_EC2", "AWS_ENDPOINT_URL_STS"} {
		t.Setenv(k, "")
		_ = os.Unsetenv(k)
	}
	t.Setenv("AWS_CONFIG_FILE", os.DevNull)
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", os.DevNull)
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
}

func TestConfigure_errorsNameTheSetting(t *testing.T) {
	isolateAWSEnv(t)
	cases := []struct {
		name     string
		attrs    map[string]any
		endpoint string
		wantPath string
		wantText string
	}{
		{"no region anywhere", map[string]any{"skip_credentials_validation": true, "skip_requesting_account_id": true}, "", "region", "no AWS region"},
		{"access key without secret", map[string]any{"region": "ap-southeast-1", "access_key": "AKIDEXAMPLE"}, "", "secret_key", "must be set together"},
		{"unreachable STS", map[string]any{"region": "ap-southeast-1", "access_key": "a", "secret_key": "b", "max_retries": 1}, "http://127.0.0.1:1", "endpoints", "cannot be reached"},
		{"profile that does not exist", map[string]any{"region": "ap-southeast-1", "profile": "no-such-profile"}, "", "profile", "no-such-profile"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := New("test")()
			var resp provider.ConfigureResponse
			p.Configure(context.Background(), provider.ConfigureRequest{Config: providerConfigValue(t, p, c.attrs, c.endpoint)}, &resp)
			paths := errorPaths(resp.Diagnostics)
			if len(paths) != 1 || paths[0] != c.wantPath {
				t.Fatalf("error paths = %v, want [%s]; diags: %v", paths, c.wantPath, resp.Diagnostics)
			}
			if d := resp.Diagnostics.Errors()[0]; !strings.Contains(d.Detail(), c.wantText) {
				t.Fatalf("detail %q does not mention %q", d.Detail(), c.wantText)
			}
		})
	}
}

func TestConfigure_skipsSTSWhenAsked(t *testing.T) {
	isolateAWSEnv(t)
	p := New("test")()
	var resp provider.ConfigureResponse
	cfg := providerConfigValue(t, p, map[string]any{
		"region": "ap-southeast-1", "access_key": "a", "secret_key": "b",
		"skip_credentials_validation": true, "skip_requesting_account_id": true, "cluster_name": "my-cluster",
	}, "http://127.0.0.1:1")
	p.Configure(context.Background(), provider.ConfigureRequest{Config: cfg}, &resp)
	if resp.Diagnostics.HasError() {
		t.Fatalf("unexpected errors: %v", resp.Diagnostics)
	}
	m, ok := resp.DataSourceData.(*Meta)
	if !ok || m.ClusterName != "my-cluster" || m.Client.Region != "ap-southeast-1" {
		t.Fatalf("meta = %+v", resp.DataSourceData)
	}
	if calls := m.Client.Calls.Snapshot(); len(calls) != 0 {
		t.Fatalf("skipping validation must make no call, got %v", calls)
	}
}
