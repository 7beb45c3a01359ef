package nodeclass

import (
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/discovery"
)

// TestValidateLaunchOptions covers capacity reservation terms, the placement group selector,
// cpu_options, connection_tracking and the volume initialization rate.
func TestValidateLaunchOptions(t *testing.T) {
	snapshot := func(rate int, snap string) []BlockDeviceMapping {
		return []BlockDeviceMapping{{DeviceName: "/dev/xvdb", EBS: &EBS{SnapshotID: snap, VolumeSize: "100Gi", VolumeInitializationRate: ptr(rate)}}}
	}
	tests := []struct {
		name   string
		mutate func(*Spec)
		want   []wantErr
	}{
		{"all valid", func(s *Spec) {
			s.CapacityReservationTerms = []discovery.CapacityReservationTerm{{ID: "cr-0abc"}, {Tags: map[string]string{"team": "ml"}, OwnerID: "123456789012"}}
			s.PlacementGroupSelector = &discovery.PlacementGroupSelector{ID: "pg-0abc"}
			s.Context = "c-abc1234567890123"
			s.CPUOptions = &CPUOptions{NestedVirtualization: "enabled"}
			s.ConnectionTracking = &ConnectionTracking{TCPEstablishedTimeout: ptr(432000), UDPStreamTimeout: ptr(60), UDPTimeout: ptr(30)}
			s.BlockDeviceMappings = snapshot(300, "snap-0abc")
		}, nil},
		{"empty cpu_options", func(s *Spec) { s.CPUOptions = &CPUOptions{} }, nil},
		{"placement group by name", func(s *Spec) { s.PlacementGroupSelector = &discovery.PlacementGroupSelector{Name: "hpc"} }, nil},
		{"reservation term errors", func(s *Spec) {
			s.CapacityReservationTerms = []discovery.CapacityReservationTerm{{ID: "cr-1", InstanceMatchCriteria: "open"}, {OwnerID: "1"}}
		}, []wantErr{
			{"capacity_reservation_selector_terms[0].id", "cannot be combined"},
			{"capacity_reservation_selector_terms[1]", "needs `tags`, `id` or `instance_match_criteria`"},
			{"capacity_reservation_selector_terms[1].owner_id", "12 digits"},
		}},
		{"reservation tag key", func(s *Spec) {
			s.CapacityReservationTerms = []discovery.CapacityReservationTerm{{Tags: map[string]string{"team": ""}}}
		}, []wantErr{{`capacity_reservation_selector_terms[0].tags["team"]`, "empty value"}}},
		{"placement group with id and name", func(s *Spec) {
			s.PlacementGroupSelector = &discovery.PlacementGroupSelector{ID: "pg-1", Name: "hpc"}
		}, []wantErr{{"placement_group_selector", "mutually exclusive"}}},
		{"placement group with neither", func(s *Spec) { s.PlacementGroupSelector = &discovery.PlacementGroupSelector{} },
			[]wantErr{{"placement_group_selector", "set `id` (pg-…) or `name`"}}},
		{"placement group id shape", func(s *Spec) { s.PlacementGroupSelector = &discovery.PlacementGroupSelector{ID: "hpc"} },
			[]wantErr{{"placement_group_selector.id", `"hpc" is not a placement group id`}}},
		{"nested virtualization", func(s *Spec) { s.CPUOptions = &CPUOptions{NestedVirtualization: "on"} },
			[]wantErr{{"cpu_options.nested_virtualization", `must be "enabled" or "disabled", got "on"`}}},
		{"empty connection tracking", func(s *Spec) { s.ConnectionTracking = &ConnectionTracking{} },
			[]wantErr{{"connection_tracking", "set at least one"}}},
		{"connection tracking ranges", func(s *Spec) {
			s.ConnectionTracking = &ConnectionTracking{TCPEstablishedTimeout: ptr(59), UDPStreamTimeout: ptr(181), UDPTimeout: ptr(61)}
		}, []wantErr{
			{"connection_tracking.tcp_established_timeout", "between 60 and 432000 seconds, got 59"},
			{"connection_tracking.udp_stream_timeout", "between 60 and 180 seconds, got 181"},
			{"connection_tracking.udp_timeout", "between 30 and 60 seconds, got 61"},
		}},
		{"volume initialization rate range", func(s *Spec) { s.BlockDeviceMappings = snapshot(99, "snap-1") },
			[]wantErr{{"block_device_mappings[0].ebs.volume_initialization_rate", "between 100 and 300 MiB/s, got 99"}}},
		{"volume initialization rate without snapshot", func(s *Spec) { s.BlockDeviceMappings = snapshot(100, "") },
			[]wantErr{{"block_device_mappings[0].ebs.volume_initialization_rate", "set `snapshot_id` too"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := baseSpec()
			tc.mutate(&s)
			checkErrs(t, Validate(s), tc.want)
		})
	}
}
