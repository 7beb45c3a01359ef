package launchplan

import (
	"reflect"
	"strings"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/requirements"
)

func TestReconcile(t *testing.T) {
	zones := []string{"a", "b", "c"}
	cases := []struct {
		name      string
		nodes     []Node
		replicas  int
		launch    []ZoneLaunch
		terminate []string
	}{
		{"from nothing, spread evenly", nil, 3, []ZoneLaunch{{"a", 1}, {"b", 1}, {"c", 1}}, nil},
		{"from nothing, uneven", nil, 5, []ZoneLaunch{{"a", 2}, {"b", 2}, {"c", 1}}, nil},
		{"refill the empty zone", []Node{{"i-1", "a", 1}, {"i-2", "b", 2}}, 3, []ZoneLaunch{{"c", 1}}, nil},
		{"steady", []Node{{"i-1", "a", 1}, {"i-2", "b", 2}, {"i-3", "c", 3}}, 3, nil, nil},
		{"scale down newest first", []Node{{"i-1", "a", 1}, {"i-2", "b", 2}, {"i-3", "c", 3}}, 1, nil, []string{"i-3", "i-2"}},
		{"zone left the pool goes first", []Node{{"i-1", "x", 1}, {"i-2", "b", 2}, {"i-3", "c", 3}}, 2, nil, []string{"i-1"}},
		{"to zero", []Node{{"i-1", "a", 1}}, 0, nil, []string{"i-1"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			launch, terminate := Reconcile(zones, c.nodes, c.replicas)
			if !reflect.DeepEqual(launch, c.launch) || !reflect.DeepEqual(terminate, c.terminate) {
				t.Fatalf("Reconcile = %v, %v; want %v, %v", launch, terminate, c.launch, c.terminate)
			}
		})
	}
}

func TestSubnetTracker(t *testing.T) {
	tr := NewSubnetTracker([]Subnet{
		{ID: "subnet-b", Zone: "a", AvailableIPs: 100},
		{ID: "subnet-a", Zone: "a", AvailableIPs: 100},
		{ID: "subnet-c", Zone: "a", AvailableIPs: 60},
		{ID: "subnet-z", Zone: "b", AvailableIPs: 500},
	})
	pick := func(zone string) string {
		s, ok := tr.Pick(zone)
		if !ok {
			return ""
		}
		return s.ID
	}
	if got := pick("a"); got != "subnet-a" {
		t.Fatalf("tie on free IPs goes to the lowest id, got %s", got)
	}
	tr.Take("subnet-a", 30)
	if got := pick("a"); got != "subnet-b" {
		t.Fatalf("IPs taken this apply count: want subnet-b, got %s", got)
	}
	tr.MarkUnavailable("subnet-b")
	tr.Take("subnet-a", 30)
	if got := pick("a"); got != "subnet-c" {
		t.Fatalf("after subnet-b ran dry and subnet-a dropped to 40, want subnet-c (60), got %s", got)
	}
	tr.MarkUnavailable("subnet-a")
	tr.MarkUnavailable("subnet-c")
	if got := pick("a"); got != "" {
		t.Fatalf("no subnet left, got %s", got)
	}
	if got := pick("b"); got != "subnet-z" {
		t.Fatalf("zone b: %s", got)
	}
}

func TestConsistencyWarning(t *testing.T) {
	in := baseInput()
	in.Requirements = []requirements.Requirement{onlyTypes("m5.large")}
	for _, w := range mustBuild(t, in).Warnings {
		if w.Path.String() == "node_class" {
			t.Fatalf("secondary IPs: Karpenter and the kubelet agree, got %v", w)
		}
	}
	in.Class.CNI.PrefixDelegation = true
	var found bool
	for _, w := range mustBuild(t, in).Warnings {
		if w.Path.String() == "node_class" {
			found = true
			if !strings.Contains(w.Message, "m5.large Karpenter assumes 29") || !strings.Contains(w.Message, "runs 110") {
				t.Fatalf("warning does not name the numbers: %s", w.Message)
			}
		}
	}
	if !found {
		t.Fatal("prefix delegation: no consistency warning")
	}
}

func TestDrifted(t *testing.T) {
	planned := map[string]string{"c/p/aaa": "f1", "c/p/bbb": "f2"}
	for _, tc := range []struct {
		name  string
		stamp TemplateStamp
		want  bool
	}{
		{"same template, same content", TemplateStamp{"c/p/aaa", "f1"}, false},
		{"same template, content changed", TemplateStamp{"c/p/aaa", "f0"}, true},
		{"template no longer planned", TemplateStamp{"c/p/zzz", "f1"}, true},
		{"content of another group", TemplateStamp{"c/p/aaa", "f2"}, true},
		{"no stamp (launched before tagging)", TemplateStamp{}, false},
		{"name without fingerprint", TemplateStamp{"c/p/aaa", ""}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Drifted(tc.stamp, planned); got != tc.want {
				t.Errorf("Drifted(%+v) = %v, want %v", tc.stamp, got, tc.want)
			}
		})
	}
}
