package drift

import (
	"reflect"
	"strings"
	"testing"
)

func base() Side {
	return Side{
		NodePoolHash: "111", NodeClassHash: "222",
		AMIs:           []string{"ami-a", "ami-b"},
		Subnets:        []string{"subnet-1", "subnet-2"},
		SecurityGroups: []string{"sg-1"},
		InstanceTypes:  []string{"m5.large", "m5.xlarge", "c5.large"},
		Zones:          []string{"z1", "z2"},
		CapacityTypes:  []string{"on-demand", "spot"},
	}
}

func TestCompare(t *testing.T) {
	for _, tc := range []struct {
		name    string
		change  func(*Side)
		reasons []string
		all     bool
		detail  string
	}{
		{"no change: limits, weight and budgets are not in any input", func(*Side) {}, nil, false, ""},
		{"a template change (taint, label, expireAfter) changes the NodePool hash", func(s *Side) { s.NodePoolHash = "999" },
			[]string{ReasonNodePool}, true, "hash 111 → 999"},
		{"a class change (user data, tags, block devices) changes its hash", func(s *Side) { s.NodeClassHash = "999" },
			[]string{ReasonNodeClass}, true, "EC2NodeClass changed"},
		{"a newer image replaces one of two", func(s *Side) { s.AMIs = []string{"ami-c", "ami-b"} },
			[]string{ReasonAMI}, false, "nodes on image ami-a drift (now ami-b, ami-c)"},
		{"a new image set replaces both", func(s *Side) { s.AMIs = []string{"ami-c"} }, []string{ReasonAMI}, true, "2 images (ami-a, ami-b)"},
		{"an added image drifts nothing", func(s *Side) { s.AMIs = append(s.AMIs, "ami-c") }, nil, false, ""},
		{"an alias left to Karpenter says nothing of images", func(s *Side) { s.AMIs = nil }, nil, false, ""},
		{"an untagged subnet drifts the nodes in it", func(s *Side) { s.Subnets = []string{"subnet-2"} },
			[]string{ReasonSubnet}, false, "nodes in subnet subnet-1 drift"},
		{"an added subnet drifts nothing", func(s *Side) { s.Subnets = append(s.Subnets, "subnet-3") }, nil, false, ""},
		{"an added security group drifts every node (the set differs)", func(s *Side) { s.SecurityGroups = []string{"sg-1", "sg-2"} },
			[]string{ReasonSecurityGroups}, true, "sg-1 → sg-1, sg-2"},
		{"a requirement that narrows the types", func(s *Side) { s.InstanceTypes = []string{"m5.large", "m5.xlarge"} },
			[]string{ReasonRequirements}, false, "nodes of instance type c5.large no longer meet the requirements"},
		{"a requirement that only widens", func(s *Side) { s.InstanceTypes = append(s.InstanceTypes, "r5.large") }, nil, false, ""},
		{"spot no longer allowed", func(s *Side) { s.CapacityTypes = []string{"on-demand"} },
			[]string{ReasonRequirements}, false, "capacity type spot"},
		{"a zone and a type dropped: one finding", func(s *Side) { s.Zones, s.InstanceTypes = []string{"z1"}, []string{"m5.large"} },
			[]string{ReasonRequirements}, false, "nodes of 2 instance types (c5.large, m5.xlarge) and nodes of zone z2"},
		{"several reasons at once", func(s *Side) { s.NodeClassHash, s.Subnets = "9", []string{"subnet-1"} },
			[]string{ReasonNodeClass, ReasonSubnet}, true, "subnet-2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			planned := base()
			tc.change(&planned)
			v := Compare(base(), planned)
			if got := v.Reasons(); !reflect.DeepEqual(got, tc.reasons) && (len(got) != 0 || len(tc.reasons) != 0) {
				t.Fatalf("reasons %v, want %v", got, tc.reasons)
			}
			if v.AllNodes != tc.all || v.Drifts() != (len(tc.reasons) > 0) {
				t.Errorf("all nodes %v, drifts %v", v.AllNodes, v.Drifts())
			}
			if !strings.Contains(v.Summary(), tc.detail) {
				t.Errorf("summary %q lacks %q", v.Summary(), tc.detail)
			}
		})
	}
}

// A pool being created, or planned by a provider version that kept no hashes, has no prior
// hash: nothing is said of the hashes.
func TestCompareWithoutPriorHashes(t *testing.T) {
	prior := base()
	prior.NodePoolHash, prior.NodeClassHash = "", ""
	if v := Compare(prior, base()); v.Drifts() {
		t.Errorf("findings %v", v.Findings)
	}
	if v := Compare(Side{}, base()); v.Drifts() || v.Summary() != "no drift: running nodes are kept" {
		t.Errorf("creation: %+v", v)
	}
}

// A new hash version (Karpenter upgraded, or karpenter_version raised) changes the hash without
// drifting: Karpenter re-annotates its nodes instead, so hashes of two versions are not compared.
func TestCompareHashVersionChangeIsNotDrift(t *testing.T) {
	prior := Side{NodeClassHash: "111", NodeClassHashVersion: "v5"}
	planned := Side{NodeClassHash: "222", NodeClassHashVersion: "v6"}
	if v := Compare(prior, planned); v.Drifts() {
		t.Errorf("a hash version change drifts: %+v", v)
	}
	planned.NodeClassHashVersion = "v5"
	if v := Compare(prior, planned); !v.Drifts() || v.Findings[0].Reason != ReasonNodeClass {
		t.Errorf("a hash change within a version does not drift: %+v", v)
	}
}
