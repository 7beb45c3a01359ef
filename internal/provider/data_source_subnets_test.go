package provider

import (
	"fmt"
	"sort"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/nodeplane/terraform-provider-karpenter/internal/acctest"
)

const subnetsDS = "data.karpenter_subnets.test"

func subnetsConfig(terms string) string {
	return providerConfig("") + fmt.Sprintf(`
data "karpenter_subnets" "test" {
  selector_terms = %s
}
`, terms)
}

// expectSubnets checks the data source returned exactly these subnets, in this order, with
// their zones, and the sorted distinct zones.
func expectSubnets(subnets ...acctest.Subnet) resource.TestCheckFunc {
	checks := []resource.TestCheckFunc{
		resource.TestCheckResourceAttr(subnetsDS, "subnets.#", fmt.Sprint(len(subnets))),
	}
	zones := map[string]bool{}
	for i, s := range subnets {
		checks = append(checks,
			resource.TestCheckResourceAttr(subnetsDS, fmt.Sprintf("subnets.%d.id", i), s.ID),
			resource.TestCheckResourceAttr(subnetsDS, fmt.Sprintf("subnets.%d.zone", i), s.Zone),
			resource.TestCheckResourceAttr(subnetsDS, fmt.Sprintf("subnets.%d.cidr_block", i), s.CIDR),
			resource.TestCheckResourceAttrSet(subnetsDS, fmt.Sprintf("subnets.%d.zone_id", i)),
			resource.TestCheckResourceAttrSet(subnetsDS, fmt.Sprintf("subnets.%d.vpc_id", i)),
		)
		zones[s.Zone] = true
	}
	var zs []string
	for z := range zones {
		zs = append(zs, z)
	}
	sort.Strings(zs)
	checks = append(checks, resource.TestCheckResourceAttr(subnetsDS, "zones.#", fmt.Sprint(len(zs))))
	for i, z := range zs {
		checks = append(checks, resource.TestCheckResourceAttr(subnetsDS, fmt.Sprintf("zones.%d", i), z))
	}
	return resource.ComposeAggregateTestCheckFunc(checks...)
}

func TestAccSubnets_selectors(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	special := acctest.RandomName("special")
	n := acctest.NewNetwork(t, acctest.NetworkSpec{ExtraSubnetTags: map[int]map[string]string{1: {special: "yes"}}})
	a, b, c := n.Subnets[0], n.Subnets[1], n.Subnets[2]
	k := acctest.TagKey

	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: factories(nil),
		Steps: []resource.TestStep{
			{
				// Tag match; order is free IPs descending: /24, /25, /26.
				Config: subnetsConfig(fmt.Sprintf(`[{ tags = { %q = %q } }]`, k, n.ID)),
				Check: resource.ComposeAggregateTestCheckFunc(
					expectSubnets(a, b, c),
					resource.TestCheckResourceAttr(subnetsDS, "subnets.0.available_ip_address_count", "251"),
					resource.TestCheckResourceAttr(subnetsDS, "subnets.1.available_ip_address_count", "123"),
					resource.TestCheckResourceAttr(subnetsDS, "subnets.2.available_ip_address_count", "59"),
					resource.TestCheckResourceAttr(subnetsDS, "subnets.0.tags.tier", "private-a"),
					resource.TestCheckResourceAttr(subnetsDS, "subnets.0.vpc_id", n.VPCID),
				),
			},
			{
				// "*" matches any value of a key: only subnet b carries the random key.
				Config: subnetsConfig(fmt.Sprintf(`[{ tags = { %q = "*" } }]`, special)),
				Check:  expectSubnets(b),
			},
			{
				// A wildcard inside a value is an EC2 filter wildcard, ANDed with the network tag.
				Config: subnetsConfig(fmt.Sprintf(`[{ tags = { %q = %q, tier = "private*" } }]`, k, n.ID)),
				Check:  expectSubnets(a, b),
			},
			{
				// Id terms merge into one lookup.
				Config: subnetsConfig(fmt.Sprintf(`[{ id = %q }, { id = %q }]`, c.ID, a.ID)),
				Check:  expectSubnets(a, c),
			},
			{
				// Terms are ORed, and a subnet matched twice appears once.
				Config: subnetsConfig(fmt.Sprintf(`[
    { tags = { %[1]q = %[2]q, tier = "public-c" } },
    { tags = { %[1]q = %[2]q, zone-tag = "b" } },
    { id = %[3]q },
  ]`, k, n.ID, c.ID)),
				Check: expectSubnets(b, c),
			},
			{
				// No match: an empty list (and a warning, asserted in the unit tests).
				Config: subnetsConfig(fmt.Sprintf(`[{ tags = { %q = "no-such-value" } }]`, k)),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(subnetsDS, "subnets.#", "0"),
					resource.TestCheckResourceAttr(subnetsDS, "zones.#", "0"),
				),
			},
		},
	})
}

func TestAccSubnets_invalidTermsMakeNoCall(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	rec := &callRecorder{}
	cases := []struct {
		terms string
		err   string
	}{
		{`[{ tags = { team = "a" }, id = "subnet-0abc" }]`, "`id` is mutually exclusive with `tags`"},
		{`[{ id = "sn-123" }]`, `"sn-123" is not a subnet id`},
		{`[{ tags = { team = "" } }]`, `tag "team" has an empty value`},
		{`[{ tags = { "" = "x" } }]`, `tag keys must not be empty`},
		{`[{}]`, "needs `tags` or `id`"},
		{`[]`, `selector_terms list must contain at least 1 elements`},
	}
	var steps []resource.TestStep
	for _, c := range cases {
		steps = append(steps, resource.TestStep{Config: subnetsConfig(c.terms), ExpectError: capWordsRE(c.err)})
	}
	steps = append(steps, resource.TestStep{
		// A valid config afterwards proves the recorder sees calls when they happen.
		Config: subnetsConfig(`[{ tags = { "karpenter-acc/none" = "x" } }]`),
		Check: func(*terraform.State) error {
			if rec.Calls("EC2.")["EC2.DescribeSubnets"] == 0 {
				return fmt.Errorf("the valid step made no DescribeSubnets call: the recorder is not wired")
			}
			return nil
		},
	})
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: factories(rec),
		Steps:                    steps[:len(steps)-1],
	})
	if calls := rec.Calls("EC2."); len(calls) != 0 {
		t.Fatalf("invalid selector terms made EC2 calls: %v", calls)
	}
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: factories(rec),
		Steps:                    steps[len(steps)-1:],
	})
}
