package installation

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
	"github.com/nodeplane/terraform-provider-karpenter/internal/manifest"
)

// Queue is what SQS and EventBridge say of the controller's interruption queue.
type Queue struct {
	Name  string
	Found bool
	ARN   string
	// Policy is the queue's access policy (JSON; "" without one).
	Policy string
	// Rules are the EventBridge rules that target the queue.
	Rules []Rule
}

// Rule is one EventBridge rule that targets the queue.
type Rule struct {
	Name, State  string
	EventPattern string // JSON
}

// InterruptionEvent is one kind of event Karpenter's interruption controller reads from its queue.
type InterruptionEvent struct{ Source, DetailType string }

// interruptionEvents are the events the controller's message parsers handle, and the minor that
// first parses each (read from karpenter-provider-aws pkg/controllers/interruption/messages of
// each supported release; TestInterruptionEventsAreKarpenters compares them).
var interruptionEvents = []struct {
	InterruptionEvent
	since string
}{
	{InterruptionEvent{"aws.ec2", "EC2 Spot Instance Interruption Warning"}, "1.9"},
	{InterruptionEvent{"aws.ec2", "EC2 Instance Rebalance Recommendation"}, "1.9"},
	{InterruptionEvent{"aws.ec2", "EC2 Instance State-change Notification"}, "1.9"},
	{InterruptionEvent{"aws.health", "AWS Health Event"}, "1.9"},
	{InterruptionEvent{"aws.ec2", "EC2 Capacity Reservation Instance Interruption Warning"}, "1.10"},
}

// InterruptionEvents are the events Karpenter minor reads from its interruption queue.
func InterruptionEvents(minor string) []InterruptionEvent {
	var out []InterruptionEvent
	for _, e := range interruptionEvents {
		if manifest.AtLeast(minor, e.since) {
			out = append(out, e.InterruptionEvent)
		}
	}
	return out
}

// CheckInterruption compares the controller's interruption queue with what Karpenter minor needs:
// the queue exists, its policy lets EventBridge and SQS send to it, and an enabled rule feeds it
// each event the controller handles. Each gap is a warning naming the fix.
func CheckInterruption(c Controller, minor string, q Queue) []attrpath.Finding {
	where := fmt.Sprintf("Karpenter's controller (deployment %s/%s) reads INTERRUPTION_QUEUE %q", c.Namespace, c.Name, q.Name)
	warn := func(summary, format string, args ...any) attrpath.Finding {
		return attrpath.Finding{Path: pathController, Summary: summary, Message: where + ", " + fmt.Sprintf(format, args...)}
	}
	if !q.Found {
		return []attrpath.Finding{warn("Interruption queue not found", "which SQS does not have in this region: Karpenter handles no "+
			"spot interruption, rebalance, state-change or scheduled-change event. Create the queue and its EventBridge rules (Karpenter's "+
			"CloudFormation template, or terraform-aws-eks' karpenter module), or fix the setting")}
	}
	var out []attrpath.Finding
	if missing := policyGaps(q.Policy); len(missing) > 0 {
		out = append(out, warn("Interruption queue does not admit its senders", "whose policy lets no sqs:SendMessage from %s: "+
			"the events never reach the queue. Allow those service principals to send to %s", strings.Join(missing, " and "), q.ARN))
	}
	var absent []string
	for _, e := range InterruptionEvents(minor) {
		if !slices.ContainsFunc(q.Rules, func(r Rule) bool { return r.State != "DISABLED" && patternMatches(r.EventPattern, e) }) {
			absent = append(absent, fmt.Sprintf("%q (source %s)", e.DetailType, e.Source))
		}
	}
	if len(absent) > 0 {
		out = append(out, warn("Interruption rules missing", "but no enabled EventBridge rule sends it %s, which Karpenter %s handles: add "+
			"a rule per event with the pattern {\"source\": [source], \"detail-type\": [detail type]} and the queue as its target",
			strings.Join(absent, ", "), minor))
	}
	return out
}

var pathController = attrpath.Of("karpenter_controller")

// statement is one statement of an access policy, as far as policyGaps reads it.
type statement struct {
	Effect    string
	Principal struct{ Service any }
	Action    any
}

// policyGaps are the senders (events.amazonaws.com, sqs.amazonaws.com) no Allow statement of the
// policy lets send messages.
func policyGaps(policy string) []string {
	var doc struct{ Statement []statement }
	_ = json.Unmarshal([]byte(policy), &doc) // an unreadable policy admits nobody
	var out []string
	for _, svc := range []string{"events.amazonaws.com", "sqs.amazonaws.com"} {
		if !slices.ContainsFunc(doc.Statement, func(s statement) bool {
			return s.Effect == "Allow" && slices.Contains(stringsOf(s.Principal.Service), svc) &&
				slices.ContainsFunc(stringsOf(s.Action), func(a string) bool { return a == "sqs:SendMessage" || a == "sqs:*" || a == "*" })
		}) {
			out = append(out, svc)
		}
	}
	return out
}

// patternMatches reports whether an event pattern selects the event: its source and detail-type
// lists (when present) hold the event's.
func patternMatches(pattern string, e InterruptionEvent) bool {
	var p map[string]any
	if json.Unmarshal([]byte(pattern), &p) != nil {
		return false
	}
	for key, want := range map[string]string{"source": e.Source, "detail-type": e.DetailType} {
		if v, ok := p[key]; ok && !slices.Contains(stringsOf(v), want) {
			return false
		}
	}
	return p["source"] != nil
}

// stringsOf is a JSON string or list of strings as a list.
func stringsOf(v any) []string {
	switch x := v.(type) {
	case string:
		return []string{x}
	case []any:
		var out []string
		for _, e := range x {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}
