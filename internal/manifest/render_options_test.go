package manifest

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// launchOptionsEC2NodeClass sets every v1.14 field added with capacity reservations and
// placement groups: capacityReservationSelectorTerms, placementGroupSelector, context,
// cpuOptions, connectionTracking and ebs.volumeInitializationRate.
func launchOptionsEC2NodeClass() EC2NodeClass {
	nc := minimalEC2NodeClass()
	nc.Name = "reserved"
	nc.Spec.CapacityReservationSelectorTerms = []CapacityReservationSelectorTerm{
		{ID: "cr-0123456789abcdef0"},
		{Tags: map[string]string{"team": "ml"}, OwnerID: "012345678901", InstanceMatchCriteria: "targeted"},
	}
	nc.Spec.PlacementGroupSelector = PlacementGroupSelector{ID: "pg-0123456789abcdef0"}
	nc.Spec.Context = "c-abc1234567890123"
	nc.Spec.CPUOptions = CPUOptions{NestedVirtualization: "enabled"}
	nc.Spec.ConnectionTracking = ConnectionTracking{TCPEstablishedTimeout: new(int32(3600)), UDPStreamTimeout: new(int32(60)), UDPTimeout: new(int32(30))}
	nc.Spec.BlockDeviceMappings = []BlockDeviceMapping{{DeviceName: "/dev/xvdb", EBS: BlockDevice{
		SnapshotID: "snap-0123456789abcdef0", VolumeInitializationRate: new(int32(200))}}}
	return nc
}

func TestRenderLaunchOptionsGolden(t *testing.T) {
	got := mustRenderEC2NodeClass(t, launchOptionsEC2NodeClass())
	want := `apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata:
  name: reserved
spec:
  subnetSelectorTerms:
    - tags:
        karpenter.sh/discovery: demo
  securityGroupSelectorTerms:
    - tags:
        karpenter.sh/discovery: demo
  capacityReservationSelectorTerms:
    - id: cr-0123456789abcdef0
    - tags:
        team: ml
      ownerID: "012345678901"
      instanceMatchCriteria: targeted
  amiSelectorTerms:
    - alias: al2023@latest
  role: KarpenterNodeRole-demo
  blockDeviceMappings:
    - deviceName: /dev/xvdb
      ebs:
        snapshotID: snap-0123456789abcdef0
        volumeInitializationRate: 200
  context: c-abc1234567890123
  cpuOptions:
    nestedVirtualization: enabled
  connectionTracking:
    tcpEstablishedTimeout: 3600
    udpStreamTimeout: 60
    udpTimeout: 30
  placementGroupSelector:
    id: pg-0123456789abcdef0
`
	if got != want {
		t.Errorf("rendered:\n%s\nwant:\n%s", got, want)
	}
	admitted(t, got)

	// By name, and a partial connectionTracking: only what is set is rendered.
	nc := launchOptionsEC2NodeClass()
	nc.Spec.PlacementGroupSelector = PlacementGroupSelector{Name: "hpc-cluster"}
	nc.Spec.ConnectionTracking = ConnectionTracking{UDPTimeout: new(int32(60))}
	got = mustRenderEC2NodeClass(t, nc)
	for _, l := range []string{"  placementGroupSelector:\n    name: hpc-cluster\n", "  connectionTracking:\n    udpTimeout: 60\n"} {
		if !strings.Contains(got, l) {
			t.Errorf("missing %q in:\n%s", l, got)
		}
	}
	admitted(t, got)
}

func TestRenderLaunchOptionsOmittedWhenUnset(t *testing.T) {
	got := mustRenderEC2NodeClass(t, minimalEC2NodeClass())
	for _, key := range []string{"capacityReservationSelectorTerms", "placementGroupSelector", "context", "cpuOptions", "connectionTracking", "volumeInitializationRate"} {
		if strings.Contains(got, key) {
			t.Errorf("%s rendered while unset:\n%s", key, got)
		}
	}
}

// TestLaunchOptionsRefused checks that the API server's rules for the new fields hold on
// what the renderer writes (the provider relies on them for the shapes it does not check).
func TestLaunchOptionsRefused(t *testing.T) {
	for name, mutate := range map[string]func(*EC2NodeClass){
		"placement group id and name": func(nc *EC2NodeClass) {
			nc.Spec.PlacementGroupSelector = PlacementGroupSelector{ID: "pg-1", Name: "x"}
		},
		"reservation id with tags": func(nc *EC2NodeClass) {
			nc.Spec.CapacityReservationSelectorTerms = []CapacityReservationSelectorTerm{{ID: "cr-1", Tags: map[string]string{"a": "b"}}}
		},
		"udpTimeout out of range": func(nc *EC2NodeClass) {
			nc.Spec.ConnectionTracking = ConnectionTracking{UDPTimeout: new(int32(61))}
		},
		"nestedVirtualization enum": func(nc *EC2NodeClass) { nc.Spec.CPUOptions = CPUOptions{NestedVirtualization: "on"} },
		"volumeInitializationRate without snapshot": func(nc *EC2NodeClass) {
			nc.Spec.BlockDeviceMappings = []BlockDeviceMapping{{EBS: BlockDevice{VolumeSize: "10Gi", VolumeInitializationRate: new(int32(100))}}}
		},
	} {
		t.Run(name, func(t *testing.T) {
			nc := launchOptionsEC2NodeClass()
			mutate(&nc)
			_ = refused(t, mustRenderEC2NodeClass(t, nc))
		})
	}
}

func TestLaunchOptionsRoundTrip(t *testing.T) {
	nc := launchOptionsEC2NodeClass()
	out := mustRenderEC2NodeClass(t, nc)
	want := ec2NodeClassDoc{EC2NodeClassAPIVersion, EC2NodeClassKind, objectMeta{nc.Name, nc.Labels, nc.Annotations}, nc.Spec}
	var viaYAML, viaJSON ec2NodeClassDoc
	if err := yaml.Unmarshal([]byte(out), &viaYAML); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(viaYAML, want) {
		t.Errorf("YAML round trip:\n got %+v\nwant %+v", viaYAML, want)
	}
	if err := json.Unmarshal(yamlToJSON(t, out), &viaJSON); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(viaJSON, want) {
		t.Errorf("YAML->JSON round trip:\n got %+v\nwant %+v", viaJSON, want)
	}
}
