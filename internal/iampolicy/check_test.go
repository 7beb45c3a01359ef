package iampolicy

import (
	"errors"
	"net/url"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
)

var rolePath = attrpath.Of("role")

// statuses maps need IDs to their status.
func statuses(rep Report) map[string]string {
	out := map[string]string{}
	for _, n := range rep.Needs {
		out[n.Need.ID] = n.Status()
	}
	return out
}

func need(t *testing.T, rep Report, id string) NeedResult {
	t.Helper()
	for _, n := range rep.Needs {
		if n.Need.ID == id {
			return n
		}
	}
	t.Fatalf("no need %s in %+v", id, rep.Needs)
	return NeedResult{}
}

func summaries(fs []attrpath.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Summary)
	}
	return out
}

func TestCheck(t *testing.T) {
	const (
		summaryCNI      = "Node role cannot assign pod IPs"
		summaryRegister = "Node role cannot register with the cluster"
		summaryPull     = "Node role cannot pull images"
	)
	doc := func(src, json string) Document { return Document{Source: src, JSON: json} }
	ec2Star := doc("inline:cni", `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"ec2:*","Resource":"*"}}`)
	worker := doc(arnWorker, fixtureWorkerNodePolicy)
	cni := doc(arnCNI, fixtureCNIPolicy)
	ecrRead := doc(arnECRRead, fixtureECRReadOnly)
	ecrPull := doc(arnECRPull, fixtureECRPullOnly)
	ssm := doc(arnSSMCore, fixtureSSMish)

	cases := []struct {
		name     string
		docs     []Document
		opts     Options
		statuses map[string]string
		// summaries of the findings, in order
		findings []string
		// missing actions per need ID (only the needs listed are checked)
		missing map[string][]string
		// not-evaluated actions per need ID (only the needs listed are checked)
		notEvaluated map[string][]string
	}{
		{
			name:     "the three managed policies meet every need",
			docs:     managedDocs(),
			statuses: map[string]string{NeedAssignPodIPs: StatusMet, NeedRegister: StatusMet, NeedPullImages: StatusMet},
			// AmazonEKS_CNI_Policy grants ec2:CreateTags on network interfaces only.
			notEvaluated: map[string][]string{NeedAssignPodIPs: {"ec2:CreateTags"}, NeedRegister: nil, NeedPullImages: nil},
		},
		{
			name:     "pull-only ECR policy, URL-encoded documents, another policy beside them",
			docs:     []Document{encoded(worker), encoded(cni), encoded(ecrPull), ssm},
			statuses: map[string]string{NeedAssignPodIPs: StatusMet, NeedRegister: StatusMet, NeedPullImages: StatusMet},
		},
		{
			name:         "inline ec2:* grants the CNI actions, every resource",
			docs:         []Document{worker, ecrRead, ec2Star},
			statuses:     map[string]string{NeedAssignPodIPs: StatusMet, NeedRegister: StatusMet, NeedPullImages: StatusMet},
			notEvaluated: map[string][]string{NeedAssignPodIPs: nil},
		},
		{
			name:     "only the worker policy",
			docs:     []Document{worker},
			statuses: map[string]string{NeedAssignPodIPs: StatusNotMet, NeedRegister: StatusMet, NeedPullImages: StatusNotMet},
			findings: []string{summaryCNI, summaryPull},
			missing: map[string][]string{
				// The worker policy grants ec2:DescribeInstances and ec2:DescribeInstanceTypes.
				NeedAssignPodIPs: {"ec2:AssignPrivateIpAddresses", "ec2:AttachNetworkInterface", "ec2:CreateNetworkInterface",
					"ec2:CreateTags", "ec2:DeleteNetworkInterface", "ec2:DescribeNetworkInterfaces", "ec2:DescribeTags",
					"ec2:DetachNetworkInterface", "ec2:ModifyNetworkInterfaceAttribute", "ec2:UnassignPrivateIpAddresses"},
				NeedRegister:   nil,
				NeedPullImages: {"ecr:BatchCheckLayerAvailability", "ecr:BatchGetImage", "ecr:GetAuthorizationToken", "ecr:GetDownloadUrlForLayer"},
			},
		},
		{
			name:     "the CNI uses its own role: assign pod IPs skipped",
			docs:     []Document{worker, ecrRead},
			opts:     Options{CNIHasOwnRole: true},
			statuses: map[string]string{NeedAssignPodIPs: StatusSkipped, NeedRegister: StatusMet, NeedPullImages: StatusMet},
		},
		{
			name:     "the CNI uses its own role, node role empty",
			docs:     nil,
			opts:     Options{CNIHasOwnRole: true, IPv6: true},
			statuses: map[string]string{NeedAssignPodIPs: StatusSkipped, NeedRegister: StatusNotMet, NeedPullImages: StatusNotMet},
			findings: []string{summaryRegister, summaryPull},
		},
		{
			name:     "no policies at all",
			docs:     nil,
			statuses: map[string]string{NeedAssignPodIPs: StatusNotMet, NeedRegister: StatusNotMet, NeedPullImages: StatusNotMet},
			findings: []string{summaryCNI, summaryRegister, summaryPull},
		},
		{
			name:     "IPv6: the managed CNI policy lacks ec2:AssignIpv6Addresses",
			docs:     managedDocs(),
			opts:     Options{IPv6: true},
			statuses: map[string]string{NeedAssignPodIPs: StatusNotMet, NeedRegister: StatusMet, NeedPullImages: StatusMet},
			findings: []string{summaryCNI},
			missing:  map[string][]string{NeedAssignPodIPs: {"ec2:AssignIpv6Addresses"}},
		},
		{
			name:     "IPv6 with ec2:* inline",
			docs:     []Document{worker, ecrRead, ec2Star},
			opts:     Options{IPv6: true},
			statuses: map[string]string{NeedAssignPodIPs: StatusMet, NeedRegister: StatusMet, NeedPullImages: StatusMet},
		},
		{
			name:     "explicit deny of ECR wins over the managed policy",
			docs:     append(managedDocs(), doc("inline:no-ecr", `{"Version":"2012-10-17","Statement":[{"Sid":"NoECR","Effect":"Deny","Action":"ecr:*","Resource":"*"}]}`)),
			statuses: map[string]string{NeedAssignPodIPs: StatusMet, NeedRegister: StatusMet, NeedPullImages: StatusNotMet},
			findings: []string{summaryPull},
			missing:  map[string][]string{NeedPullImages: sorted(pullActions)},
		},
		{
			name: "conditional deny of ECR only may deny",
			docs: append(managedDocs(), doc("inline:ecr-vpce", `{"Statement":{"Effect":"Deny","Action":"ecr:*","Resource":"*",
				"Condition":{"StringNotEquals":{"aws:SourceVpce":"vpce-1"}}}}`)),
			statuses:     map[string]string{NeedAssignPodIPs: StatusMet, NeedRegister: StatusMet, NeedPullImages: StatusMet},
			notEvaluated: map[string][]string{NeedPullImages: sorted(pullActions)},
		},
		{
			name: "conditional allow counts as allowed, not evaluated",
			docs: []Document{cni, ecrRead, doc("inline:register", `{"Statement":[
				{"Effect":"Allow","Action":["ec2:Describe*"],"Resource":"*"},
				{"Effect":"Allow","Action":"eks:DescribeCluster","Resource":"arn:aws:eks:us-east-1:123456789012:cluster/prod"}]}`)},
			statuses:     map[string]string{NeedAssignPodIPs: StatusMet, NeedRegister: StatusMet, NeedPullImages: StatusMet},
			notEvaluated: map[string][]string{NeedRegister: {"eks:DescribeCluster"}},
		},
		{
			name:     "NotAction allow of everything but IAM",
			docs:     []Document{doc("inline:broad", `{"Statement":{"Effect":"Allow","NotAction":"iam:*","Resource":"*"}}`)},
			statuses: map[string]string{NeedAssignPodIPs: StatusMet, NeedRegister: StatusMet, NeedPullImages: StatusMet},
		},
		{
			name:     "ec2:Describe* and eks:* beside the CNI policy",
			docs:     []Document{cni, ecrRead, doc("inline:wild", `{"Statement":[{"Effect":"Allow","Action":["ec2:Describe*","eks:*"],"Resource":"*"}]}`)},
			statuses: map[string]string{NeedAssignPodIPs: StatusMet, NeedRegister: StatusMet, NeedPullImages: StatusMet},
		},
		{
			name:     "deny by wildcard ec2:Assign?rivate*",
			docs:     append(managedDocs(), doc("inline:no-ips", `{"Statement":[{"Effect":"Deny","Action":"ec2:Assign?rivate*","Resource":"*"}]}`)),
			statuses: map[string]string{NeedAssignPodIPs: StatusNotMet, NeedRegister: StatusMet, NeedPullImages: StatusMet},
			findings: []string{summaryCNI},
			missing:  map[string][]string{NeedAssignPodIPs: {"ec2:AssignPrivateIpAddresses"}},
		},
		{
			name:     "*:* grants everything",
			docs:     []Document{doc("inline:admin", `{"Statement":{"Effect":"Allow","Action":"*:*","Resource":"*"}}`)},
			statuses: map[string]string{NeedAssignPodIPs: StatusMet, NeedRegister: StatusMet, NeedPullImages: StatusMet},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.opts.Path = rolePath
			rep := Check(tc.docs, tc.opts)
			if len(rep.Errors) > 0 {
				t.Fatalf("Errors: %v", rep.Errors)
			}
			if got := statuses(rep); !reflect.DeepEqual(got, tc.statuses) {
				t.Errorf("statuses = %v, want %v", got, tc.statuses)
			}
			if got := summaries(rep.Findings); !reflect.DeepEqual(got, tc.findings) {
				t.Errorf("finding summaries = %q, want %q", got, tc.findings)
			}
			for _, f := range rep.Findings {
				if f.Path.String() != "role" {
					t.Errorf("finding at %q, want role", f.Path)
				}
			}
			for id, want := range tc.missing {
				if got := need(t, rep, id).MissingActions(); !reflect.DeepEqual(got, want) && (len(got) > 0 || len(want) > 0) {
					t.Errorf("%s missing = %q, want %q", id, got, want)
				}
			}
			for id, want := range tc.notEvaluated {
				if got := actionNames(need(t, rep, id).NotEvaluated); !reflect.DeepEqual(got, want) && (len(got) > 0 || len(want) > 0) {
					t.Errorf("%s not evaluated = %q, want %q", id, got, want)
				}
			}
			if rep.Met() != (len(tc.findings) == 0) {
				t.Errorf("Met() = %v with findings %q", rep.Met(), tc.findings)
			}
		})
	}
}

// With only the worker policy, the CNI warning names 8 of the 10 actions that policy does not
// grant (it grants ec2:DescribeInstances and ec2:DescribeInstanceTypes, which the CNI needs too),
// the managed policy and the consequence; with only the ECR policy, 8 of all 12.
func TestCheckCNIMessage(t *testing.T) {
	cases := []struct {
		name string
		docs []Document
		want string
	}{
		{
			name: "only the worker policy",
			docs: []Document{{Source: arnWorker, JSON: fixtureWorkerNodePolicy}},
			want: "The node role is missing 10 actions: ec2:AssignPrivateIpAddresses, ec2:AttachNetworkInterface, " +
				"ec2:CreateNetworkInterface, ec2:CreateTags, ec2:DeleteNetworkInterface, ec2:DescribeNetworkInterfaces, " +
				"ec2:DescribeTags, ec2:DetachNetworkInterface and 2 more. " +
				"Attach arn:aws:iam::aws:policy/AmazonEKS_CNI_Policy, or grant these actions inline. " +
				"(The node role needs none of this when the VPC CNI has its own role, through IRSA or EKS Pod Identity.) " +
				"Without them, the node joins, but every pod stays ContainerCreating without an IP.",
		},
		{
			name: "only the ECR policy",
			docs: []Document{{Source: arnECRRead, JSON: fixtureECRReadOnly}},
			want: "The node role is missing 12 actions: ec2:AssignPrivateIpAddresses, ec2:AttachNetworkInterface, " +
				"ec2:CreateNetworkInterface, ec2:CreateTags, ec2:DeleteNetworkInterface, ec2:DescribeInstanceTypes, " +
				"ec2:DescribeInstances, ec2:DescribeNetworkInterfaces and 4 more. " +
				"Attach arn:aws:iam::aws:policy/AmazonEKS_CNI_Policy, or grant these actions inline. " +
				"(The node role needs none of this when the VPC CNI has its own role, through IRSA or EKS Pod Identity.) " +
				"Without them, the node joins, but every pod stays ContainerCreating without an IP.",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rep := Check(tc.docs, Options{Path: rolePath})
			if len(rep.Findings) == 0 {
				t.Fatal("no findings")
			}
			f := rep.Findings[0]
			if f.Summary != "Node role cannot assign pod IPs" || f.Message != tc.want || f.Path.String() != "role" {
				t.Errorf("CNI finding:\n%s: %s: %s\nwant\n%s", f.Path, f.Summary, f.Message, tc.want)
			}
		})
	}
}

// The pull warning names both ECR managed policies.
func TestCheckPullMessage(t *testing.T) {
	rep := Check([]Document{{Source: arnWorker, JSON: fixtureWorkerNodePolicy}}, Options{Path: rolePath, CNIHasOwnRole: true})
	if len(rep.Findings) != 1 {
		t.Fatalf("findings: %+v", rep.Findings)
	}
	pull := rep.Findings[0]
	want := "The node role is missing 4 actions: ecr:BatchCheckLayerAvailability, ecr:BatchGetImage, " +
		"ecr:GetAuthorizationToken, ecr:GetDownloadUrlForLayer. " +
		"Attach arn:aws:iam::aws:policy/AmazonEC2ContainerRegistryReadOnly or " +
		"arn:aws:iam::aws:policy/AmazonEC2ContainerRegistryPullOnly, or grant these actions inline. " +
		"Without them, pods stay ImagePullBackOff for images in ECR."
	if pull.Summary != "Node role cannot pull images" || pull.Message != want {
		t.Errorf("pull finding:\n%s: %s\nwant\n%s", pull.Summary, pull.Message, want)
	}
}

func TestCheckMessages(t *testing.T) {
	cases := []struct {
		name    string
		docs    []Document
		opts    Options
		summary string
		want    []string // substrings of the message
		notWant []string
	}{
		{
			name:    "register: one action missing",
			docs:    []Document{{Source: "inline:partial", JSON: `{"Statement":{"Effect":"Allow","Action":["ec2:Describe*","ecr:*"],"Resource":"*"}}`}},
			opts:    Options{CNIHasOwnRole: true},
			summary: "Node role cannot register with the cluster",
			want: []string{"The node role is missing 1 action: eks:DescribeCluster.",
				"Attach arn:aws:iam::aws:policy/AmazonEKSWorkerNodePolicy, or grant this action inline.",
				"Without it, the node launches but never registers as a Kubernetes node."},
			notWant: []string{"VPC CNI"},
		},
		{
			name: "explicit deny names its source and statement",
			docs: append(managedDocs(), Document{Source: "inline:lockdown",
				JSON: `{"Statement":[{"Sid":"NoENI","Effect":"Deny","Action":["ec2:CreateNetworkInterface","ec2:DeleteNetworkInterface"],"Resource":"*"}]}`}),
			summary: "Node role cannot assign pod IPs",
			want: []string{"The node role is missing 2 actions: ec2:CreateNetworkInterface, ec2:DeleteNetworkInterface.",
				`ec2:CreateNetworkInterface, ec2:DeleteNetworkInterface are explicitly denied by inline:lockdown (statement "NoENI").`,
				"An explicit Deny overrides every Allow: remove or narrow it.",
				// ec2:CreateTags is still limited to network interfaces by the managed policy.
				"Also ec2:CreateTags: granted only for some resources by arn:aws:iam::aws:policy/AmazonEKS_CNI_Policy (statement \"AmazonEKSCNIPolicyENITag\"): not evaluated."},
			notWant: []string{"Attach "},
		},
		{
			name: "denies from two policies, and an implicit deny",
			docs: []Document{
				{Source: arnWorker, JSON: fixtureWorkerNodePolicy},
				{Source: "inline:a", JSON: `{"Statement":{"Effect":"Allow","Action":"ecr:*","Resource":"*"}}`},
				{Source: "inline:b", JSON: `{"Statement":{"Effect":"Deny","Action":"ecr:BatchGetImage","Resource":"*"}}`},
				{Source: "arn:aws:iam::123456789012:policy/guard", JSON: `{"Statement":[{"Effect":"Allow","Action":"s3:*","Resource":"*"},{"Effect":"Deny","Action":"ecr:Get*","Resource":"*"}]}`},
			},
			opts:    Options{CNIHasOwnRole: true},
			summary: "Node role cannot pull images",
			want: []string{"The node role is missing 3 actions: ecr:BatchGetImage, ecr:GetAuthorizationToken, ecr:GetDownloadUrlForLayer.",
				"ecr:GetAuthorizationToken, ecr:GetDownloadUrlForLayer are explicitly denied by arn:aws:iam::123456789012:policy/guard (statement 2).",
				"ecr:BatchGetImage is explicitly denied by inline:b (statement 1)."},
			notWant: []string{"Attach "},
		},
		{
			name:    "IPv6 action is in no managed policy",
			docs:    managedDocs(),
			opts:    Options{IPv6: true},
			summary: "Node role cannot assign pod IPs",
			want: []string{"The node role is missing 1 action: ec2:AssignIpv6Addresses.",
				"ec2:AssignIpv6Addresses is in no AWS managed policy for nodes: grant it inline or in a customer managed policy."},
			notWant: []string{"Attach "},
		},
		{
			name:    "other partition",
			docs:    []Document{{Source: arnECRPull, JSON: fixtureECRPullOnly}},
			opts:    Options{Partition: "aws-cn", CNIHasOwnRole: true},
			summary: "Node role cannot register with the cluster",
			want:    []string{"Attach arn:aws-cn:iam::aws:policy/AmazonEKSWorkerNodePolicy, or grant these actions inline."},
		},
		{
			name: "unreadable policy is named",
			docs: []Document{{Source: arnWorker, JSON: fixtureWorkerNodePolicy}, {Source: arnECRRead, JSON: fixtureECRReadOnly},
				{Source: "inline:cni", JSON: `{"Statement":`}},
			summary: "Node role cannot assign pod IPs",
			want:    []string{"Not counted, because this policy could not be parsed: inline:cni."},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.opts.Path = rolePath
			rep := Check(tc.docs, tc.opts)
			if len(rep.Findings) != 1 || rep.Findings[0].Summary != tc.summary {
				t.Fatalf("findings %+v, want one %q", rep.Findings, tc.summary)
			}
			msg := rep.Findings[0].Message
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("message\n%s\nlacks\n%s", msg, w)
				}
			}
			for _, w := range tc.notWant {
				if strings.Contains(msg, w) {
					t.Errorf("message\n%s\nhas\n%s", msg, w)
				}
			}
		})
	}
}

func TestCheckMalformedDocument(t *testing.T) {
	docs := append(managedDocs(),
		Document{Source: "inline:bad-json", JSON: `{"Statement": [`},
		Document{Source: "inline:bad-effect", JSON: `{"Statement":{"Effect":"Maybe","Action":"*","Resource":"*"}}`},
	)
	rep := Check(docs, Options{Path: rolePath})
	if len(rep.Errors) != 2 {
		t.Fatalf("Errors = %v", rep.Errors)
	}
	for i, src := range []string{"inline:bad-json", "inline:bad-effect"} {
		var pe *ParseError
		if !errors.As(rep.Errors[i], &pe) || pe.Source != src || !strings.Contains(rep.Errors[i].Error(), src) {
			t.Errorf("Errors[%d] = %v, want a *ParseError naming %s", i, rep.Errors[i], src)
		}
	}
	// The readable documents are still evaluated.
	if !rep.Met() || len(rep.Findings) != 0 {
		t.Errorf("Met() = %v, findings %+v", rep.Met(), rep.Findings)
	}
}

func TestCheckReportForAttribute(t *testing.T) {
	rep := Check(managedDocs(), Options{Path: rolePath, CNIHasOwnRole: false})
	cni := need(t, rep, NeedAssignPodIPs)
	if got, want := cni.Notes(), []string{
		`ec2:CreateTags: granted only for some resources by arn:aws:iam::aws:policy/AmazonEKS_CNI_Policy (statement "AmazonEKSCNIPolicyENITag"): not evaluated`,
	}; !reflect.DeepEqual(got, want) {
		t.Errorf("Notes() = %q, want %q", got, want)
	}
	if len(cni.Evaluations) != 12 || cni.Evaluations[0].Action != "ec2:AssignPrivateIpAddresses" {
		t.Errorf("Evaluations: %d, first %+v", len(cni.Evaluations), cni.Evaluations[0])
	}
	var ids []string
	for _, n := range rep.Needs {
		ids = append(ids, n.Need.ID)
	}
	if want := []string{NeedAssignPodIPs, NeedRegister, NeedPullImages}; !reflect.DeepEqual(ids, want) {
		t.Errorf("need order %q, want %q", ids, want)
	}

	skipped := need(t, Check(managedDocs(), Options{CNIHasOwnRole: true}), NeedAssignPodIPs)
	if !skipped.Skipped || !skipped.Met || len(skipped.Evaluations) != 0 || skipped.Status() != StatusSkipped {
		t.Errorf("skipped need = %+v", skipped)
	}
}

func TestNeeds(t *testing.T) {
	cases := []struct {
		name    string
		opts    Options
		ids     []string
		cniActs int
	}{
		{"default", Options{}, []string{NeedAssignPodIPs, NeedRegister, NeedPullImages}, 12},
		{"IPv6", Options{IPv6: true}, []string{NeedAssignPodIPs, NeedRegister, NeedPullImages}, 13},
		{"CNI has its own role", Options{CNIHasOwnRole: true}, []string{NeedRegister, NeedPullImages}, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			needs := Needs(tc.opts)
			var ids []string
			for _, n := range needs {
				ids = append(ids, n.ID)
				if n.ID == NeedAssignPodIPs && len(n.Actions) != tc.cniActs {
					t.Errorf("CNI actions: %d, want %d", len(n.Actions), tc.cniActs)
				}
			}
			if !reflect.DeepEqual(ids, tc.ids) {
				t.Errorf("ids %q, want %q", ids, tc.ids)
			}
		})
	}
	// The needs are copies: changing one changes nothing else.
	Needs(Options{})[0].Actions[0] = "x:y"
	if Needs(Options{})[0].Actions[0] != "ec2:AssignPrivateIpAddresses" {
		t.Error("Needs shares its slices")
	}
}

// Every need's actions are granted by its (first) managed policy, except the ones it says are in
// none, and each fixture is the policy it claims to be.
func TestNeedsMatchManagedPolicies(t *testing.T) {
	fixtures := map[string]string{
		"AmazonEKS_CNI_Policy":               fixtureCNIPolicy,
		"AmazonEKSWorkerNodePolicy":          fixtureWorkerNodePolicy,
		"AmazonEC2ContainerRegistryReadOnly": fixtureECRReadOnly,
		"AmazonEC2ContainerRegistryPullOnly": fixtureECRPullOnly,
	}
	for _, n := range Needs(Options{IPv6: true}) {
		for _, name := range n.ManagedPolicies {
			p, err := Parse(Document{Source: ManagedPolicyARN("", name), JSON: fixtures[name]})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			for _, a := range n.Actions {
				ev := Evaluate([]Policy{p}, a)
				if in := !contains(n.NotInManagedPolicies, a); (ev.Decision == Allowed) != in {
					t.Errorf("%s: %s is %s", name, a, ev.Decision)
				}
			}
		}
	}
}

func TestListed(t *testing.T) {
	names := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = string(rune('a' + i))
		}
		return out
	}
	cases := map[int]string{
		0:  "",
		1:  "a",
		8:  "a, b, c, d, e, f, g, h",
		9:  "a, b, c, d, e, f, g, h and 1 more",
		12: "a, b, c, d, e, f, g, h and 4 more",
	}
	for n, want := range cases {
		if got := listed(names(n)); got != want {
			t.Errorf("listed(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestManagedPolicyARN(t *testing.T) {
	for _, tc := range []struct{ partition, want string }{
		{"", "arn:aws:iam::aws:policy/AmazonEKS_CNI_Policy"},
		{"aws", "arn:aws:iam::aws:policy/AmazonEKS_CNI_Policy"},
		{"aws-us-gov", "arn:aws-us-gov:iam::aws:policy/AmazonEKS_CNI_Policy"},
	} {
		if got := ManagedPolicyARN(tc.partition, "AmazonEKS_CNI_Policy"); got != tc.want {
			t.Errorf("ManagedPolicyARN(%q) = %q, want %q", tc.partition, got, tc.want)
		}
	}
}

// encoded is the document URL-encoded the way IAM returns it.
func encoded(d Document) Document {
	d.JSON = url.PathEscape(d.JSON)
	return d
}

func sorted(s []string) []string {
	out := clone(s)
	sort.Strings(out)
	return out
}
