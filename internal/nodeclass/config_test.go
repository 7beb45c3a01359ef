package nodeclass

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/nodeplane/terraform-provider-karpenter/internal/capacity"
	"github.com/nodeplane/terraform-provider-karpenter/internal/connectivity"
	"github.com/nodeplane/terraform-provider-karpenter/internal/discovery"
	"github.com/nodeplane/terraform-provider-karpenter/internal/iampolicy"
)

func TestConfigSpec(t *testing.T) {
	two, on := 2, true
	c := Config{Name: "a", SubnetSelectorTerms: []discovery.SubnetTerm{{ID: "subnet-1"}},
		Networking:     &NetworkingConfig{PrefixDelegation: true, CustomNetworking: &CustomNetworkingConfig{}, WarmIPTarget: &two, CNIRole: "irsa"},
		Kubelet:        &KubeletConfig{Kubelet: Kubelet{MaxPods: &two}, Config: map[string]any{"serializeImagePulls": false}},
		EnclaveOptions: &EnclaveOptionsConfig{Enabled: &on}, NetworkInterfaces: []capacity.Interface{}}
	s, findings := c.Spec()
	if len(findings) > 0 {
		t.Fatal(findings)
	}
	switch {
	case s.MetadataOptions != DefaultMetadataOptions():
		t.Errorf("unset metadata options must be the CRD defaults: %+v", s.MetadataOptions)
	case !s.Networking.CustomNetworking || s.Networking.PodSubnetTerms == nil || len(s.Networking.PodSubnetTerms) != 0:
		t.Errorf("a custom_networking block turns it on with known, empty terms: %+v", s.Networking)
	case s.Networking.Warm.IP == nil || *s.Networking.Warm.IP != 2 || !s.Networking.PrefixDelegation:
		t.Errorf("networking %+v", s.Networking)
	case s.Kubelet.Config["serializeImagePulls"] != false || *s.Kubelet.MaxPods != 2:
		t.Errorf("kubelet %+v", s.Kubelet)
	case s.EnclaveOptions == nil || !*s.EnclaveOptions:
		t.Error("enclave options lost")
	case s.SecurityGroupTerms != nil || s.NetworkInterfaces == nil:
		t.Error("omitted terms must stay nil (defaults apply later) and an empty interface list must stay empty")
	}
	if !c.Networking.CNIOwnRole() || (&NetworkingConfig{CNIRole: "node"}).CNIOwnRole() || (*NetworkingConfig)(nil).CNIOwnRole() {
		t.Error("CNIOwnRole")
	}
	c.Kubelet.Config = "maxPods: 3"
	if _, findings := c.Spec(); len(findings) != 1 || findings[0].Path.String() != "kubelet.config" ||
		!strings.Contains(findings[0].Message, "must be an object") {
		t.Errorf("a kubelet.config that is not an object: %v", findings)
	}
}

func TestConnectivitySetting(t *testing.T) {
	if got := (*ConnectivityConfig)(nil).Setting(); got.Configured || got.Mode != ChecksWarn {
		t.Errorf("unset: %+v", got)
	}
	got := (&ConnectivityConfig{ControlPlaneSecurityGroupIDs: []string{"sg-1"}}).Setting()
	if !got.Configured || got.Mode != ChecksWarn || got.ControlPlaneTerms == nil || got.ControlPlaneIDs[0] != "sg-1" {
		t.Errorf("set without checks: %+v", got)
	}
}

// What a plan records reads back as the resolution and capacity it came from.
func TestRecordRoundTrip(t *testing.T) {
	end := time.Date(2027, 1, 2, 3, 4, 5, 0, time.UTC)
	r := Resolved{VPCID: "vpc-1", Zones: []string{"a"},
		Subnets:        []discovery.Subnet{{ID: "subnet-1", VPCID: "vpc-1", Zone: "a", ZoneID: "az1", CIDRBlock: "10.0.0.0/24", AvailableIPAddressCount: 250, Tags: map[string]string{"Name": "one"}}},
		SecurityGroups: []discovery.SecurityGroup{{ID: "sg-1", Name: "nodes", VPCID: "vpc-1"}},
		PodSubnets:     []PodSubnet{{Zone: "a", Subnet: discovery.Subnet{ID: "subnet-p", VPCID: "vpc-1", Zone: "a", CIDRBlock: "100.64.0.0/16", AvailableIPAddressCount: 65000}}},
		AMIs:           AMIResolution{AMIs: []AMI{{ID: "ami-1", Architecture: "amd64"}}}}
	c := &Capacity{Reservations: []discovery.CapacityReservation{{ID: "cr-1", InstanceType: "p5.48xlarge", Zone: "a", EndDate: end,
		AvailableInstanceCount: 2, State: discovery.CapacityReservationStateActive}},
		PlacementGroup: &discovery.PlacementGroup{ID: "pg-1", Name: "p", Strategy: "partition", PartitionCount: 3, State: discovery.PlacementGroupStateAvailable}}
	rec := Record(r, c)
	back, ok := rec.Resolution()
	r.AMIs = AMIResolution{} // images are resolved afresh at every plan
	if !ok || !reflect.DeepEqual(back, r) {
		t.Errorf("resolution:\n got %+v\nwant %+v", back, r)
	}
	cb, ok := rec.Capacity()
	if !ok || !reflect.DeepEqual(cb, *c) {
		t.Errorf("capacity:\n got %+v\nwant %+v", cb, *c)
	}
	if ids := rec.ReservationIDs(); !reflect.DeepEqual(ids, []string{"cr-1"}) {
		t.Errorf("ids %v", ids)
	}
	empty := Record(Resolved{}, nil)
	if empty.Subnets == nil || empty.Zones == nil || empty.AMIs == nil || empty.CapacityReservations != nil || empty.PlacementGroup != nil {
		t.Errorf("nothing resolved: lists known and empty, capacity null: %+v", empty)
	}
	if _, ok := (Recorded{}).Resolution(); ok {
		t.Error("a state without a resolution gave one")
	}
	bad := Recorded{CapacityReservations: []CapacityReservationOutput{{ID: "cr-1", EndDate: new(string)}}}
	if _, ok := bad.Capacity(); ok {
		t.Error("an unreadable end date was accepted")
	}
}

func TestReports(t *testing.T) {
	got := ConnectivityReport([]connectivity.Finding{{Check: "node_to_node", Passed: true, Detail: "ok."},
		{Check: "kubelet", Detail: "blocked.", Fix: "add a rule"}})
	if len(got) != 2 || got[0].Detail != "ok." || got[1].Detail != "blocked. Fix: add a rule." {
		t.Errorf("connectivity report %+v", got)
	}
	if ConnectivityReport(nil) != nil || NodeRoleReport(nil) != nil {
		t.Error("checks that did not run must report null")
	}
	rep := iampolicy.Check(nil, iampolicy.Options{CNIHasOwnRole: true})
	needs := NodeRoleReport(&rep)
	if len(needs) != 3 || needs[0].Status != iampolicy.StatusSkipped || !strings.HasPrefix(needs[0].Detail, "Skipped") ||
		needs[1].Status != iampolicy.StatusNotMet || len(needs[1].Missing) == 0 || !strings.HasPrefix(needs[1].Detail, "Without these actions") {
		t.Errorf("node role report %+v", needs)
	}
}

// A partial metadata_options takes the CRD's default for each field it leaves out; an explicit
// zero hop limit stays zero (and fails validation), it is not a missing field.
func TestMetadataOptionsDefaultPerField(t *testing.T) {
	hop := 2
	c := Config{Name: "default", MetadataOptions: &MetadataOptionsConfig{HTTPPutResponseHopLimit: &hop}}
	s, _ := c.Spec()
	want := DefaultMetadataOptions()
	want.HTTPPutResponseHopLimit = 2
	if s.MetadataOptions != want {
		t.Errorf("metadata options %+v, want %+v", s.MetadataOptions, want)
	}
	zero, optional := 0, "optional"
	c.MetadataOptions = &MetadataOptionsConfig{HTTPPutResponseHopLimit: &zero, HTTPTokens: &optional}
	if s, _ = c.Spec(); s.MetadataOptions.HTTPPutResponseHopLimit != 0 || s.MetadataOptions.HTTPTokens != "optional" ||
		s.MetadataOptions.HTTPEndpoint != "enabled" {
		t.Errorf("explicit values: %+v", s.MetadataOptions)
	}
}
