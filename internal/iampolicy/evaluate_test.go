package iampolicy

import (
	"strings"
	"testing"
)

func TestMatchAction(t *testing.T) {
	cases := []struct {
		pattern, action string
		want            bool
	}{
		{"ec2:*", "ec2:AssignPrivateIpAddresses", true},
		{"ec2:*", "eks:DescribeCluster", false},
		{"ec2:Describe*", "ec2:DescribeInstances", true},
		{"ec2:Describe*", "ec2:DescribeVolumesModifications", true},
		{"ec2:Describe*", "ec2:CreateTags", false},
		{"ec2:describe*", "EC2:DESCRIBEINSTANCES", true},
		{"*:*", "ecr:BatchGetImage", true},
		{"*:*", "ecr", false},
		{"*", "eks:DescribeCluster", true},
		{"*", "", true},
		{"ec2:Assign?rivate*", "ec2:AssignPrivateIpAddresses", true},
		{"ec2:Assign?rivate*", "ec2:AssignIpv6Addresses", false},
		{"ec2:Assign?rivate*", "ec2:AssignPPrivateIpAddresses", false},
		{"ec2:Assign*Addresses", "ec2:AssignIpv6Addresses", true},
		{"ec2:*Network*", "ec2:ModifyNetworkInterfaceAttribute", true},
		{"ec2:*Interface", "ec2:ModifyNetworkInterfaceAttribute", false},
		{"ec2:*Interface", "ec2:AttachNetworkInterface", true},
		{"ec2:**Tags", "ec2:DescribeTags", true},
		{"ec2:DescribeTags", "ec2:describetags", true},
		{"ec2:DescribeTag", "ec2:DescribeTags", false},
		{"ec2:DescribeTags", "ec2:DescribeTag", false},
		{"ec2:DescribeTag?", "ec2:DescribeTags", true},
		{"ec2:?", "ec2:", false},
		{"e?2:*", "ec2:CreateTags", true},
		{"ecr:*Layer*", "ecr:GetDownloadUrlForLayer", true},
		{"ecr:*Layer*", "ecr:BatchCheckLayerAvailability", true},
		{"", "ec2:CreateTags", false},
		{"", "", true},
	}
	for _, tc := range cases {
		if got := MatchAction(tc.pattern, tc.action); got != tc.want {
			t.Errorf("MatchAction(%q, %q) = %v, want %v", tc.pattern, tc.action, got, tc.want)
		}
	}
}

// policies parses one policy, inline:test, from statements written as JSON objects.
func policies(t *testing.T, statements ...string) []Policy {
	t.Helper()
	p, err := Parse(Document{Source: "inline:test", JSON: `{"Version":"2012-10-17","Statement":[` + strings.Join(statements, ",") + `]}`})
	if err != nil {
		t.Fatal(err)
	}
	return []Policy{p}
}

func TestEvaluate(t *testing.T) {
	const (
		allowEC2       = `{"Effect":"Allow","Action":"ec2:*","Resource":"*"}`
		allowDescribe  = `{"Effect":"Allow","Action":["ec2:Describe*"],"Resource":["*"]}`
		denyENI        = `{"Sid":"NoENI","Effect":"Deny","Action":"ec2:CreateNetworkInterface","Resource":"*"}`
		denyENIIfTag   = `{"Effect":"Deny","Action":"ec2:CreateNetworkInterface","Resource":"*","Condition":{"StringNotEquals":{"aws:RequestTag/team":"x"}}}`
		denyENIInVPC   = `{"Effect":"Deny","Action":"ec2:CreateNetworkInterface","Resource":"arn:aws:ec2:*:*:vpc/vpc-1"}`
		denyNotRes     = `{"Effect":"Deny","Action":"ec2:*","NotResource":"arn:aws:ec2:*:*:instance/*"}`
		allowIfTag     = `{"Effect":"Allow","Action":"ec2:CreateTags","Resource":"*","Condition":{"StringEquals":{"ec2:CreateAction":"CreateNetworkInterface"}}}`
		allowENIARN    = `{"Effect":"Allow","Action":"ec2:CreateTags","Resource":"arn:aws:ec2:*:*:network-interface/*"}`
		allowNotRes    = `{"Effect":"Allow","Action":"ec2:CreateTags","NotResource":"arn:aws:ec2:*:*:instance/*"}`
		allowStarAndAR = `{"Effect":"Allow","Action":"ec2:CreateTags","Resource":["arn:aws:ec2:*:*:network-interface/*","*"]}`
		allowNotIAM    = `{"Effect":"Allow","NotAction":["iam:*","sts:*"],"Resource":"*"}`
		denyNotEC2     = `{"Effect":"Deny","NotAction":"ec2:*","Resource":"*"}`
		allowAll       = `{"Effect":"Allow","Action":"*","Resource":"*"}`
	)
	cases := []struct {
		name         string
		statements   []string
		action       string
		want         Decision
		notEvaluated bool
		// counts of AllowedBy, LimitedAllowBy, DeniedBy, MayDenyBy
		allowed, limitedAllow, denied, mayDeny int
	}{
		{name: "no statements", statements: nil, action: "ec2:CreateTags", want: ImplicitDeny},
		{name: "ec2:* allows", statements: []string{allowEC2}, action: "ec2:AttachNetworkInterface", want: Allowed, allowed: 1},
		{name: "ec2:Describe* allows a describe", statements: []string{allowDescribe}, action: "ec2:DescribeTags", want: Allowed, allowed: 1},
		{name: "ec2:Describe* does not allow a create", statements: []string{allowDescribe}, action: "ec2:CreateTags", want: ImplicitDeny},
		{name: "other service not matched", statements: []string{allowEC2}, action: "eks:DescribeCluster", want: ImplicitDeny},
		{name: "explicit deny wins over allow", statements: []string{allowEC2, denyENI}, action: "ec2:CreateNetworkInterface",
			want: ExplicitDeny, allowed: 1, denied: 1},
		{name: "deny order does not matter", statements: []string{denyENI, allowAll}, action: "ec2:CreateNetworkInterface",
			want: ExplicitDeny, allowed: 1, denied: 1},
		{name: "deny of another action leaves it allowed", statements: []string{allowEC2, denyENI}, action: "ec2:DeleteNetworkInterface",
			want: Allowed, allowed: 1},
		{name: "deny without allow is explicit", statements: []string{denyENI}, action: "ec2:CreateNetworkInterface", want: ExplicitDeny, denied: 1},
		{name: "conditional deny may deny", statements: []string{allowEC2, denyENIIfTag}, action: "ec2:CreateNetworkInterface",
			want: Allowed, notEvaluated: true, allowed: 1, mayDeny: 1},
		{name: "resource-narrowed deny may deny", statements: []string{allowEC2, denyENIInVPC}, action: "ec2:CreateNetworkInterface",
			want: Allowed, notEvaluated: true, allowed: 1, mayDeny: 1},
		{name: "NotResource deny may deny", statements: []string{allowEC2, denyNotRes}, action: "ec2:CreateTags",
			want: Allowed, notEvaluated: true, allowed: 1, mayDeny: 1},
		{name: "conditional deny alone is still an implicit deny", statements: []string{denyENIIfTag}, action: "ec2:CreateNetworkInterface",
			want: ImplicitDeny, mayDeny: 1},
		{name: "definite deny and may-deny", statements: []string{allowEC2, denyENI, denyENIIfTag}, action: "ec2:CreateNetworkInterface",
			want: ExplicitDeny, allowed: 1, denied: 1, mayDeny: 1},
		{name: "conditional allow is not evaluated", statements: []string{allowIfTag}, action: "ec2:CreateTags",
			want: Allowed, notEvaluated: true, limitedAllow: 1},
		{name: "resource-narrowed allow is not evaluated", statements: []string{allowENIARN}, action: "ec2:CreateTags",
			want: Allowed, notEvaluated: true, limitedAllow: 1},
		{name: "NotResource allow is not evaluated", statements: []string{allowNotRes}, action: "ec2:CreateTags",
			want: Allowed, notEvaluated: true, limitedAllow: 1},
		{name: "resource list including * is every resource", statements: []string{allowStarAndAR}, action: "ec2:CreateTags",
			want: Allowed, allowed: 1},
		{name: "definite allow beside a limited one is evaluated", statements: []string{allowENIARN, allowEC2}, action: "ec2:CreateTags",
			want: Allowed, allowed: 1, limitedAllow: 1},
		{name: "NotAction allows what it does not list", statements: []string{allowNotIAM}, action: "ec2:AssignPrivateIpAddresses",
			want: Allowed, allowed: 1},
		{name: "NotAction does not allow what it lists", statements: []string{allowNotIAM}, action: "iam:PassRole", want: ImplicitDeny},
		{name: "NotAction is case-insensitive too", statements: []string{allowNotIAM}, action: "STS:AssumeRole", want: ImplicitDeny},
		{name: "deny with NotAction denies other services", statements: []string{allowAll, denyNotEC2}, action: "ecr:BatchGetImage",
			want: ExplicitDeny, allowed: 1, denied: 1},
		{name: "deny with NotAction spares the listed service", statements: []string{allowAll, denyNotEC2}, action: "ec2:CreateTags",
			want: Allowed, allowed: 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var ps []Policy
			if len(tc.statements) > 0 {
				ps = policies(t, tc.statements...)
			}
			ev := Evaluate(ps, tc.action)
			if ev.Action != tc.action || ev.Decision != tc.want || ev.NotEvaluated() != tc.notEvaluated {
				t.Errorf("Evaluate = %s, not evaluated %v; want %s, %v", ev.Decision, ev.NotEvaluated(), tc.want, tc.notEvaluated)
			}
			if len(ev.AllowedBy) != tc.allowed || len(ev.LimitedAllowBy) != tc.limitedAllow ||
				len(ev.DeniedBy) != tc.denied || len(ev.MayDenyBy) != tc.mayDeny {
				t.Errorf("allowed %d, limited allow %d, denied %d, may deny %d; want %d, %d, %d, %d",
					len(ev.AllowedBy), len(ev.LimitedAllowBy), len(ev.DeniedBy), len(ev.MayDenyBy),
					tc.allowed, tc.limitedAllow, tc.denied, tc.mayDeny)
			}
			if (ev.Note() != "") != tc.notEvaluated {
				t.Errorf("Note() = %q with NotEvaluated %v", ev.Note(), tc.notEvaluated)
			}
		})
	}
}

// Statements from several policies all count, each named by its own source.
func TestEvaluateAcrossPolicies(t *testing.T) {
	allow, err := Parse(Document{Source: arnCNI, JSON: fixtureCNIPolicy})
	if err != nil {
		t.Fatal(err)
	}
	deny, err := Parse(Document{Source: "inline:lockdown", JSON: `{"Statement":{"Sid":"NoENI","Effect":"Deny","Action":"ec2:*NetworkInterface","Resource":"*"}}`})
	if err != nil {
		t.Fatal(err)
	}
	ev := Evaluate([]Policy{allow, deny}, "ec2:CreateNetworkInterface")
	if ev.Decision != ExplicitDeny || len(ev.DeniedBy) != 1 || ev.DeniedBy[0].Source != "inline:lockdown" || ev.DeniedBy[0].Sid != "NoENI" {
		t.Fatalf("Evaluate = %+v", ev)
	}
	if len(ev.AllowedBy) != 1 || ev.AllowedBy[0].Source != arnCNI || ev.AllowedBy[0].Index != 0 {
		t.Errorf("AllowedBy = %+v", ev.AllowedBy)
	}
}

func TestNote(t *testing.T) {
	cases := []struct {
		name       string
		statements []string
		action     string
		want       string
	}{
		{
			name:       "allowed for some resources",
			statements: []string{`{"Effect":"Allow","Action":"ec2:CreateTags","Resource":"arn:aws:ec2:*:*:network-interface/*"}`},
			action:     "ec2:CreateTags",
			want:       "ec2:CreateTags: granted only for some resources by inline:test (statement 1): not evaluated",
		},
		{
			name:       "allowed under a condition",
			statements: []string{`{"Sid":"Tagging","Effect":"Allow","Action":"ec2:CreateTags","Resource":"*","Condition":{"Bool":{"aws:SecureTransport":"true"}}}`},
			action:     "ec2:CreateTags",
			want:       `ec2:CreateTags: granted only under a condition by inline:test (statement "Tagging"): not evaluated`,
		},
		{
			name: "may be denied",
			statements: []string{`{"Effect":"Allow","Action":"*","Resource":"*"}`,
				`{"Effect":"Deny","Action":"ec2:CreateTags","Resource":"arn:aws:ec2:*:*:instance/*","Condition":{"Bool":{"aws:ViaAWSService":"false"}}}`},
			action: "ec2:CreateTags",
			want:   "ec2:CreateTags: may be denied under a condition and for some resources by inline:test (statement 2): not evaluated",
		},
		{
			name:       "fully evaluated",
			statements: []string{`{"Effect":"Allow","Action":"*","Resource":"*"}`},
			action:     "ec2:CreateTags",
			want:       "",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := Evaluate(policies(t, tc.statements...), tc.action).Note(); got != tc.want {
				t.Errorf("Note() =\n%q\nwant\n%q", got, tc.want)
			}
		})
	}
}

func TestDecisionString(t *testing.T) {
	for d, want := range map[Decision]string{ImplicitDeny: "implicit deny", Allowed: "allowed", ExplicitDeny: "explicit deny"} {
		if d.String() != want {
			t.Errorf("%d.String() = %q, want %q", d, d.String(), want)
		}
	}
}

// EvaluateIn decides the conditions it knows the keys of, with string operators: a condition that
// holds counts as none, one that does not drops the statement, any other stays not evaluated.
func TestEvaluateIn(t *testing.T) {
	doc := `{"Statement":[
		{"Sid":"Here","Effect":"Allow","Action":"ec2:Describe*","Resource":"*","Condition":{"StringEquals":{"aws:RequestedRegion":["eu-west-1","eu-west-2"]}}},
		{"Sid":"Like","Effect":"Allow","Action":"ec2:RunInstances","Resource":"*","Condition":{"StringLikeIfExists":{"aws:requestedregion":"us-*"}}},
		{"Sid":"Tagged","Effect":"Allow","Action":"ec2:CreateFleet","Resource":"*","Condition":{"StringEquals":{"aws:RequestedRegion":"eu-west-1","aws:RequestTag/x":"y"}}},
		{"Sid":"NotThere","Effect":"Deny","Action":"ec2:TerminateInstances","Resource":"*","Condition":{"StringNotEquals":{"aws:RequestedRegion":"eu-west-1"}}},
		{"Sid":"Pass","Effect":"Allow","Action":"iam:PassRole","Resource":"*","Condition":{"StringEqualsIgnoreCase":{"iam:PassedToService":"EC2.amazonaws.com"}}},
		{"Sid":"Numeric","Effect":"Allow","Action":"ec2:TerminateInstances","Resource":"*","Condition":{"NumericLessThan":{"aws:RequestedRegion":"1"}}}]}`
	p, err := Parse(Document{Source: "inline:c", JSON: doc})
	if err != nil {
		t.Fatal(err)
	}
	ctx := Context{"aws:RequestedRegion": "eu-west-1", "iam:PassedToService": "ec2.amazonaws.com"}
	for _, c := range []struct {
		action         string
		decision       Decision
		notEvaluated   bool
		conditionFails int
	}{
		{"ec2:DescribeSubnets", Allowed, false, 0},   // the condition holds: allowed, evaluated
		{"ec2:RunInstances", ImplicitDeny, false, 1}, // us-* does not match eu-west-1
		{"ec2:CreateFleet", Allowed, true, 0},        // a tag key the context lacks: not evaluated
		{"ec2:TerminateInstances", Allowed, true, 1}, // the Deny does not apply here; the numeric Allow is not evaluated
		{"iam:PassRole", Allowed, false, 0},
	} {
		ev := EvaluateIn([]Policy{p}, c.action, ctx)
		if ev.Decision != c.decision || ev.NotEvaluated() != c.notEvaluated || len(ev.ConditionFailedBy) != c.conditionFails {
			t.Errorf("%s: %s, not evaluated %t, condition failed by %v", c.action, ev.Decision, ev.NotEvaluated(), ev.ConditionFailedBy)
		}
	}
	// Without a context nothing is decided, as Evaluate.
	if ev := EvaluateIn([]Policy{p}, "ec2:RunInstances", nil); ev.Decision != Allowed || !ev.NotEvaluated() {
		t.Errorf("no context: %+v", ev)
	}
	if _, err := Parse(Document{Source: "bad", JSON: `{"Statement":[{"Effect":"Allow","Action":"*","Resource":"*","Condition":{"StringEquals":"x"}}]}`}); err == nil {
		t.Error("a condition operator that is not an object parsed")
	}
}
