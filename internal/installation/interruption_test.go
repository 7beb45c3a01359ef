package installation

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/manifest"
)

// TestInterruptionEventsAreKarpenters: for every supported minor, the events InterruptionEvents
// names are exactly those the message parsers of that release's module zip (the release its CRDs
// come from, hash checked) handle, noop aside.
func TestInterruptionEventsAreKarpenters(t *testing.T) {
	source := regexp.MustCompile(`func \(p Parser\) Source\(\) string \{\s*return "([^"]+)"`)
	detail := regexp.MustCompile(`func \(p Parser\) DetailType\(\) string \{\s*return "([^"]+)"`)
	compared := 0
	parsers := func(path string) bool {
		return strings.HasPrefix(path, "pkg/controllers/interruption/messages/") && strings.HasSuffix(path, "/parser.go")
	}
	releaseZips(t, parsers, func(minor, module string, files map[string][]byte) {
		var got []string
		for _, b := range files {
			s, d := source.FindSubmatch(b), detail.FindSubmatch(b)
			if s != nil && d != nil {
				got = append(got, string(s[1])+"|"+string(d[1]))
			}
		}
		var want []string
		for _, e := range InterruptionEvents(minor) {
			want = append(want, e.Source+"|"+e.DetailType)
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("Karpenter %s (%s): parsers handle %v, InterruptionEvents says %v", minor, module, got, want)
		}
		compared += len(got)
	})
	if compared < 30 {
		t.Errorf("compared %d events over %d releases; want at least 30", compared, len(manifest.Versions()))
	}
}

const goodPolicy = `{"Statement":[{"Effect":"Allow","Principal":{"Service":["events.amazonaws.com","sqs.amazonaws.com"]},"Action":"sqs:SendMessage"}]}`

// TestCheckInterruption: a missing queue, a policy that admits neither sender, and rules that miss
// the capacity-reservation event 1.15 handles (a disabled rule counts for nothing) are warnings on
// karpenter_controller; a complete setup is none; 1.9 does not need the capacity-reservation rule.
func TestCheckInterruption(t *testing.T) {
	c := Controller{Namespace: "kube-system", Name: "karpenter", InterruptionQueue: "q"}
	if f := CheckInterruption(c, "1.15", Queue{Name: "q"}); len(f) != 1 || f[0].Summary != "Interruption queue not found" ||
		f[0].Path.String() != "karpenter_controller" {
		t.Errorf("missing queue: %v", f)
	}
	var rules []Rule
	for _, e := range InterruptionEvents("1.9") {
		rules = append(rules, Rule{Name: e.DetailType, State: "ENABLED",
			EventPattern: `{"source":["` + e.Source + `"],"detail-type":["` + e.DetailType + `"]}`})
	}
	q := Queue{Name: "q", Found: true, ARN: "arn:aws:sqs:r:1:q", Policy: `{"Statement":[]}`,
		Rules: append(rules, Rule{Name: "off", State: "DISABLED",
			EventPattern: `{"source":["aws.ec2"],"detail-type":["EC2 Capacity Reservation Instance Interruption Warning"]}`})}
	f := CheckInterruption(c, "1.15", q)
	if len(f) != 2 || !strings.Contains(f[0].Message, "events.amazonaws.com and sqs.amazonaws.com") ||
		!strings.Contains(f[1].Message, `"EC2 Capacity Reservation Instance Interruption Warning" (source aws.ec2)`) {
		t.Errorf("gaps: %v", f)
	}
	q.Policy = goodPolicy
	if f := CheckInterruption(c, "1.9", q); len(f) != 0 {
		t.Errorf("1.9 with its four rules: %v", f)
	}
}
