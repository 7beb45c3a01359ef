package awsclient

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/iampolicy"
	"github.com/nodeplane/terraform-provider-karpenter/internal/nodeclass"
)

// The published policy documents (examples/iam, written by cmd/gen-iam-policy) are the table's,
// every capability has permissions, every action is listed once and granted by a statement of
// its capability (and no statement grants an action of another), and each document grants
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
		if !slices.ContainsFunc(Statements, func(s Statement) bool { return s.Capability == p.Capability && slices.Contains(s.Actions, p.Action) }) {
			t.Errorf("%s: no statement of %s grants it", p.Action, p.Capability)
		}
	}
	sids := map[string]bool{}
	for _, s := range Statements {
		if sids[s.Sid] {
			t.Errorf("statement %s is listed twice", s.Sid)
		}
		sids[s.Sid] = true
		for _, a := range s.Actions {
			if !slices.ContainsFunc(Permissions, func(p Permission) bool { return p.Capability == s.Capability && p.Action == a }) {
				t.Errorf("statement %s grants %s, which is no permission of %s", s.Sid, a, s.Capability)
			}
		}
		if len(s.Resources) == 0 || s.Scope == "" {
			t.Errorf("statement %s has no resources or no scope", s.Sid)
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

// The guide's statement table (between the markers, written by cmd/gen-iam-policy) is the
// table's, in the template and in the generated page.
func TestGuideShowsTheStatements(t *testing.T) {
	for _, f := range []string{"templates/guides/iam-permissions.md.tmpl", "docs/guides/iam-permissions.md"} {
		raw, err := os.ReadFile(filepath.Join("..", "..", f))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(raw), ScopeTableBegin+"\n"+ScopeTable()+ScopeTableEnd) {
			t.Errorf("%s: the statement table is not the table's: run make docs", f)
		}
	}
}

// Writes are scoped: PassRole names only the node roles and only for EC2; every create asks for
// the owner tag in the request, every change of an existing object for it on the object; no
// statement of a write action is on "*" without a condition.
func TestWritesAreScoped(t *testing.T) {
	writes := regexp.MustCompile(`:(Create|Delete|Modify|Terminate|Run|Tag|Add|Remove|Pass)`)
	owner := "/" + nodeclass.TagOwner
	for _, s := range Statements {
		for _, a := range s.Actions {
			if !writes.MatchString(a) {
				continue
			}
			if slices.Contains(s.Resources, "*") {
				t.Errorf("%s: write %s on every resource", s.Sid, a)
			}
			if len(s.Condition) == 0 && s.Sid != "LaunchUses" {
				t.Errorf("%s: write %s without a condition", s.Sid, a)
			}
		}
		cond, _ := json.Marshal(s.Condition)
		switch {
		case slices.Contains(s.Actions, "iam:PassRole"):
			if !slices.Equal(s.Resources, []string{PhNodeRoleARNs}) || s.Condition["StringEquals"]["iam:PassedToService"] == nil {
				t.Errorf("%s: PassRole on %v with %s", s.Sid, s.Resources, cond)
			}
		case s.Sid == "LaunchUses":
			for _, r := range s.Resources {
				if !regexp.MustCompile(`:(subnet|security-group|image|snapshot|fleet|spot-instances-request)/\*$`).MatchString(r) {
					t.Errorf("LaunchUses reaches %s", r)
				}
			}
		case len(s.Condition) > 0 && s.Capability != "instance-profiles" && s.Capability != "static-pools":
			t.Errorf("%s: a read with a condition", s.Sid)
		case s.Capability == "instance-profiles" || s.Capability == "static-pools":
			if !strings.Contains(string(cond), "aws:RequestTag"+owner) && !strings.Contains(string(cond), "aws:ResourceTag"+owner) {
				t.Errorf("%s: no owner tag condition: %s", s.Sid, cond)
			}
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
