package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/nodeplane/terraform-provider-karpenter/internal/acctest"
	"github.com/nodeplane/terraform-provider-karpenter/internal/launchplan"
	"github.com/nodeplane/terraform-provider-karpenter/internal/tfvalue"
)

// A state written with the previous schema (version 3: the class's `resolved` and the pool's
// `node_class` the ClassValue object) upgrades, and the next plan of the same configuration is
// clean. The state is the one an apply writes, rewritten to version 3 exactly as a version-3
// provider wrote it: each reference replaced by the object it carries.
func TestAccStateUpgradeToClassRefPlansClean(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	cluster := acctest.RandomName("cluster")
	discoveryNetwork(t, cluster)
	rc := cliConfig(t)
	dir := t.TempDir()
	config := requiredProviders + poolConfig(cluster, "", `  template = {
    requirements = [{ key = "node.kubernetes.io/instance-type", operator = "In", values = ["m5.large", "m5.xlarge"] }]
  }`)
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) string {
		t.Helper()
		out, err := terraformCLI(t, dir, rc, append(args, "-no-color", "-input=false")...)
		if err != nil {
			t.Fatalf("terraform %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return out
	}
	run("apply", "-auto-approve")
	t.Cleanup(func() {
		if out, err := terraformCLI(t, dir, rc, "destroy", "-auto-approve", "-no-color", "-input=false"); err != nil {
			t.Errorf("destroy: %v\n%s", err, out)
		}
	})
	rewritten := writeVersion3State(t, filepath.Join(dir, "terraform.tfstate"))
	if rewritten != 2 {
		t.Fatalf("rewrote %d resources to version 3, want the class and the pool", rewritten)
	}
	out, err := terraformCLI(t, dir, rc, "plan", "-detailed-exitcode", "-no-color", "-input=false")
	if err != nil || !strings.Contains(out, "No changes.") {
		t.Fatalf("the plan after the upgrade is not clean (%v):\n%s", err, out)
	}
}

// writeVersion3State rewrites a state's classes and pools as a version-3 provider wrote them and
// returns how many it rewrote.
func writeVersion3State(t *testing.T, path string) int {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var state map[string]any
	if err := json.Unmarshal(raw, &state); err != nil {
		t.Fatal(err)
	}
	attr := map[string]string{"karpenter_node_class": "resolved", "karpenter_node_pool": "node_class"}
	n := 0
	resources, _ := state["resources"].([]any)
	for _, r := range resources {
		res, _ := r.(map[string]any)
		name, ok := attr[fmt.Sprint(res["type"])]
		if !ok {
			continue
		}
		instances, _ := res["instances"].([]any)
		for _, i := range instances {
			inst, _ := i.(map[string]any)
			attrs, _ := inst["attributes"].(map[string]any)
			attrs[name] = version3Class(t, attrs[name])
			inst["schema_version"] = 3
			n++
		}
	}
	out, err := json.MarshalIndent(state, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, out, 0o600); err != nil {
		t.Fatal(err)
	}
	return n
}

// version3Class is a reference as version 3 held it: the ClassValue object it carries.
func version3Class(t *testing.T, ref any) any {
	t.Helper()
	m, _ := ref.(map[string]any)
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	refType := types.ObjectType{AttrTypes: attrTypesOf(launchplan.ClassRef{})}.TerraformType(ctx)
	v, err := tftypes.ValueFromJSONWithOpts(b, refType, tftypes.ValueFromJSONOpts{})
	if err != nil {
		t.Fatal(err)
	}
	var r launchplan.ClassRef
	if err := tfvalue.Decode(v, &r); err != nil {
		t.Fatal(err)
	}
	class, err := r.Value()
	if err != nil {
		t.Fatal(err)
	}
	old, err := tfvalue.Encode(types.ObjectType{AttrTypes: attrTypesOf(launchplan.ClassValue{})}.TerraformType(ctx), class)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := tfvalue.Plain(old)
	if err != nil {
		t.Fatal(err)
	}
	return plain
}
