package provider

import (
	"fmt"
	"sort"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/nodeplane/terraform-provider-karpenter/internal/acctest"
)

const sgDS = "data.karpenter_security_groups.test"

func securityGroupsConfig(terms string) string {
	return providerConfig("") + fmt.Sprintf(`
data "karpenter_security_groups" "test" {
  selector_terms = %s
}
`, terms)
}

// expectGroups checks the data source returned exactly these groups, sorted by id.
func expectGroups(groups ...acctest.SecurityGroup) resource.TestCheckFunc {
	sorted := append([]acctest.SecurityGroup(nil), groups...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].ID < sorted[j].ID })
	checks := []resource.TestCheckFunc{resource.TestCheckResourceAttr(sgDS, "security_groups.#", fmt.Sprint(len(sorted)))}
	for i, g := range sorted {
		checks = append(checks,
			resource.TestCheckResourceAttr(sgDS, fmt.Sprintf("security_groups.%d.id", i), g.ID),
			resource.TestCheckResourceAttr(sgDS, fmt.Sprintf("security_groups.%d.name", i), g.Name),
			resource.TestCheckResourceAttrSet(sgDS, fmt.Sprintf("security_groups.%d.vpc_id", i)),
		)
	}
	return resource.ComposeAggregateTestCheckFunc(checks...)
}

func TestAccSecurityGroups_selectors(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	n := acctest.NewNetwork(t, acctest.NetworkSpec{})
	nodes, control := n.SecurityGroups[0], n.SecurityGroups[1]
	k := acctest.TagKey

	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: factories(nil),
		Steps: []resource.TestStep{
			{
				// Tag match, sorted by id.
				Config: securityGroupsConfig(fmt.Sprintf(`[{ tags = { %q = %q } }]`, k, n.ID)),
				Check: resource.ComposeAggregateTestCheckFunc(
					expectGroups(nodes, control),
					resource.TestCheckResourceAttr(sgDS, "security_groups.0.vpc_id", n.VPCID),
				),
			},
			{
				// "*" as a value: key must exist, any value; ANDed with the network tag.
				Config: securityGroupsConfig(fmt.Sprintf(`[{ tags = { %q = %q, role = "*" } }]`, k, n.ID)),
				Check:  expectGroups(nodes, control),
			},
			{
				// A wildcard inside a value.
				Config: securityGroupsConfig(fmt.Sprintf(`[{ tags = { %q = %q, role = "con*" } }]`, k, n.ID)),
				Check:  expectGroups(control),
			},
			{
				// Id terms.
				Config: securityGroupsConfig(fmt.Sprintf(`[{ id = %q }]`, nodes.ID)),
				Check:  expectGroups(nodes),
			},
			{
				// Name terms match the EC2 group name.
				Config: securityGroupsConfig(fmt.Sprintf(`[{ name = %q }]`, control.Name)),
				Check:  expectGroups(control),
			},
			{
				// OR of an id term and a name term.
				Config: securityGroupsConfig(fmt.Sprintf(`[{ id = %q }, { name = %q }]`, nodes.ID, control.Name)),
				Check:  expectGroups(nodes, control),
			},
			{
				// No match.
				Config: securityGroupsConfig(fmt.Sprintf(`[{ tags = { %q = "no-such-value" } }]`, k)),
				Check:  resource.TestCheckResourceAttr(sgDS, "security_groups.#", "0"),
			},
		},
	})
}

func TestAccSecurityGroups_invalidTermsMakeNoCall(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	rec := &callRecorder{}
	cases := []struct{ terms, err string }{
		{`[{ id = "sg-0abc", name = "x" }]`, "`id` is mutually exclusive with `tags` and `name`"},
		{`[{ name = "x", tags = { a = "b" } }]`, "`name` is mutually exclusive with `tags`"},
		{`[{ id = "group-1" }]`, `"group-1" is not a security group id`},
		{`[{ tags = { role = "" } }]`, `tag "role" has an empty value`},
		{`[{}]`, "needs one of `tags`, `id` or `name`"},
	}
	var steps []resource.TestStep
	for _, c := range cases {
		steps = append(steps, resource.TestStep{Config: securityGroupsConfig(c.terms), ExpectError: capWordsRE(c.err)})
	}
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: factories(rec),
		Steps:                    steps,
	})
	if calls := rec.Calls("EC2."); len(calls) != 0 {
		t.Fatalf("invalid selector terms made EC2 calls: %v", calls)
	}
}
