package awsclient

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/iampolicy"
)

// The published policy documents (examples/iam, written by cmd/gen-iam-policy) are the table's,
// every capability has permissions, every action is listed once, and each document grants
// exactly its capability's actions when internal/iampolicy evaluates it.
func TestPublishedPoliciesAreTheTable(t *testing.T) {
	seen := map[string]bool{}
	for _, p := range Permissions {
		if seen[p.Action] {
			t.Errorf("%s is listed twice", p.Action)
		}
		seen[p.Action] = true
		if !slices.ContainsFunc(Capabilities, func(c Capability) bool { return c.Name == p.Capability }) {
			t.Errorf("%s: unknown capability %q", p.Action, p.Capability)
		}
	}
	for _, c := range Capabilities {
		want, err := PolicyDocument(c.Name)
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join("..", "..", "examples", "iam", c.Name+".json"))
		if err != nil {
			t.Fatalf("%s: %v (run make docs)", c.Name, err)
		}
		if string(got) != string(want)+"\n" {
			t.Errorf("examples/iam/%s.json is not the table's policy: run make docs", c.Name)
		}
		policy, err := iampolicy.Parse(iampolicy.Document{Source: c.Name, JSON: string(want)})
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		n := 0
		for _, p := range Permissions {
			if p.Capability != c.Name {
				continue
			}
			n++
			if e := iampolicy.Evaluate([]iampolicy.Policy{policy}, p.Action); len(e.AllowedBy)+len(e.LimitedAllowBy) == 0 {
				t.Errorf("%s's policy does not allow %s", c.Name, p.Action)
			}
		}
		if n == 0 {
			t.Errorf("capability %s has no permission", c.Name)
		}
	}
}

func TestActionOf(t *testing.T) {
	for op, want := range map[string]string{"EC2.DescribeSubnets": "ec2:DescribeSubnets", "Pricing.GetProducts": "pricing:GetProducts",
		"STS.GetCallerIdentity": "sts:GetCallerIdentity", "IAM.PassRole": "iam:PassRole"} {
		if got := ActionOf(op); got != want {
			t.Errorf("ActionOf(%q) = %q, want %q", op, got, want)
		}
	}
}

// The IAM permissions guide's table (docs/guides/iam-permissions.md, generated from
// templates/guides/iam-permissions.md.tmpl; the README links to it) lists, per capability,
// exactly the table's actions.
func TestGuideListsThePermissions(t *testing.T) {
	const guide = "docs/guides/iam-permissions.md"
	raw, err := os.ReadFile(filepath.Join("..", "..", guide))
	if err != nil {
		t.Fatal(err)
	}
	action := regexp.MustCompile("`([a-z0-9]+:[A-Za-z]+)`")
	rows := 0
	for _, line := range strings.Split(string(raw), "\n") {
		for _, c := range Capabilities {
			if !strings.HasPrefix(line, "| "+c.Title+" |") {
				continue
			}
			rows++
			cells := strings.Split(line, "|")
			var got, want []string
			for _, m := range action.FindAllStringSubmatch(cells[len(cells)-2], -1) {
				got = append(got, m[1])
			}
			for _, p := range Permissions {
				if p.Capability == c.Name {
					want = append(want, p.Action)
				}
			}
			if !slices.Equal(got, want) {
				t.Errorf("%s: the %s row lists %v, the table %v", guide, c.Name, got, want)
			}
		}
	}
	if rows != len(Capabilities) {
		t.Errorf("%s: the permissions table has %d of %d capability rows", guide, rows, len(Capabilities))
	}
}
