package launchplan

import (
	"maps"
	"slices"
	"time"

	"github.com/nodeplane/terraform-provider-karpenter/internal/capacity"
	"github.com/nodeplane/terraform-provider-karpenter/internal/nodeclass"
	"github.com/nodeplane/terraform-provider-karpenter/internal/reservations"
)

// The node class publishes its Class as the `resolved` attribute and every pool on it reads it
// back: ClassValue is that value's shape (its tfsdk tags name the attributes and are metadata
// only), Class.Value and ClassValue.Class the two directions, which round-trip.

// ClassValue is the `resolved` object: a node pool's whole view of its class. Its Go shape
// defines the Terraform type (attrTypesOf), so it must only use native field types. It carries
// only what a pool's plan reads, and leaves defaults null, because every pool's plan shows it:
// subnets and pod subnets are maps (by subnet id, by zone), images keep id, architecture and
// variant, and unset networking, kubelet and metadata options are null.
type ClassValue struct {
	Name                     string                    `tfsdk:"name" json:"name,omitempty"`
	AMIFamily                string                    `tfsdk:"ami_family" json:"ami_family,omitempty"`
	AMIs                     []ClassAMI                `tfsdk:"amis" json:"amis"`
	AMIUnresolved            *string                   `tfsdk:"ami_unresolved" json:"ami_unresolved,omitempty"`
	Subnets                  map[string]ClassSubnet    `tfsdk:"subnets" json:"subnets"`
	SecurityGroupIDs         []string                  `tfsdk:"security_group_ids" json:"security_group_ids"`
	PodSubnets               map[string]ClassPodSubnet `tfsdk:"pod_subnets" json:"pod_subnets"`
	AssociatePublicIPAddress *bool                     `tfsdk:"associate_public_ip_address" json:"associate_public_ip_address,omitempty"`
	IPPrefixCount            *int64                    `tfsdk:"ip_prefix_count" json:"ip_prefix_count,omitempty"`
	NetworkInterfaces        []ClassInterface          `tfsdk:"network_interfaces" json:"network_interfaces"`
	EFA                      *bool                     `tfsdk:"efa" json:"efa,omitempty"`
	Networking               *ClassNetworking          `tfsdk:"networking" json:"networking,omitempty"`
	Kubelet                  *ClassKubelet             `tfsdk:"kubelet" json:"kubelet,omitempty"`
	MetadataOptions          *ClassMetadata            `tfsdk:"metadata_options" json:"metadata_options,omitempty"`
	BlockDeviceMappings      []ClassBlockDevice        `tfsdk:"block_device_mappings" json:"block_device_mappings"`
	DetailedMonitoring       *bool                     `tfsdk:"detailed_monitoring" json:"detailed_monitoring,omitempty"`
	UserData                 *string                   `tfsdk:"user_data" json:"user_data,omitempty"`
	Tags                     map[string]string         `tfsdk:"tags" json:"tags"`
	InstanceProfile          *string                   `tfsdk:"instance_profile" json:"instance_profile,omitempty"`
	Hash                     *string                   `tfsdk:"hash" json:"hash,omitempty"`
	HashVersion              *string                   `tfsdk:"hash_version" json:"hash_version,omitempty"`
	CapacityReservationIDs   []string                  `tfsdk:"capacity_reservation_ids" json:"capacity_reservation_ids"`
	// CapacityReservations are the selected reservations as a pool plans with them. The resolution
	// carries them (json); the pre-reference object shape of `node_class` never had them (tfsdk "-").
	CapacityReservations []ClassReservation `tfsdk:"-" json:"capacity_reservations,omitempty"`
	PlacementGroupID     *string            `tfsdk:"placement_group_id" json:"placement_group_id,omitempty"`
	// The settings that narrow the types Karpenter offers the class (settingDrop): in the
	// resolution only (json), like CapacityReservations.
	PlacementGroupStrategy string `tfsdk:"-" json:"placement_group_strategy,omitempty"`
	NestedVirtualization   bool   `tfsdk:"-" json:"nested_virtualization,omitempty"`
	NitroEnclaves          bool   `tfsdk:"-" json:"nitro_enclaves,omitempty"`
	ConnectionTracking     bool   `tfsdk:"-" json:"connection_tracking,omitempty"`
	// AutoMode is what a pool reads of an EKS Auto Mode NodeClass; nil for Karpenter's EC2NodeClass.
	AutoMode *ClassAutoMode `tfsdk:"auto_mode" json:"auto_mode,omitempty"`
}

// ClassAutoMode is the Auto Mode part of a class: its networking, which Auto Mode runs in place
// of the VPC CNI.
type ClassAutoMode struct {
	// IPv4PrefixSize is "Auto" (/28 prefixes) or "32" (secondary IPs).
	IPv4PrefixSize      string   `tfsdk:"ipv4_prefix_size" json:"ipv4_prefix_size,omitempty"`
	PodSecurityGroupIDs []string `tfsdk:"pod_security_group_ids" json:"pod_security_group_ids"`
	// StaticPodAddresses are the pod addresses of a static interface layout (nil: none), which
	// Auto Mode does not add to after launch.
	StaticPodAddresses *int64 `tfsdk:"static_pod_addresses" json:"static_pod_addresses,omitempty"`
}

// ClassReservation is one selected capacity reservation or Capacity Block: what decides which
// pools can launch into it and for how long, with its counts as of the class's last record.
type ClassReservation struct {
	ID                    string `json:"id"`
	InstanceType          string `json:"instance_type"`
	Zone                  string `json:"zone"`
	OwnerID               string `json:"owner_id,omitempty"`
	InstanceMatchCriteria string `json:"instance_match_criteria,omitempty"`
	ReservationType       string `json:"reservation_type,omitempty"`
	Available             int64  `json:"available"`
	Total                 int64  `json:"total,omitempty"`
	Start                 string `json:"start,omitempty"` // RFC 3339; "" when not known
	End                   string `json:"end,omitempty"`   // RFC 3339; "" without an end date
	Interruptible         bool   `json:"interruptible,omitempty"`
}

// ClassAMI is what a pool reads of an image: the id, and what decides the types it serves.
type ClassAMI struct {
	ID           string  `tfsdk:"id" json:"id,omitempty"`
	Architecture string  `tfsdk:"architecture" json:"architecture,omitempty"`
	Variant      *string `tfsdk:"variant" json:"variant,omitempty"`
}

// ClassSubnet is one node subnet of `resolved.subnets`, keyed by subnet id.
type ClassSubnet struct {
	Zone                    string `tfsdk:"zone" json:"zone,omitempty"`
	ZoneID                  string `tfsdk:"zone_id" json:"zone_id,omitempty"`
	AvailableIPAddressCount int64  `tfsdk:"available_ip_address_count" json:"available_ip_address_count,omitempty"`
}

// ClassPodSubnet is the pod subnet of one zone in `resolved.pod_subnets`, keyed by zone.
type ClassPodSubnet struct {
	ID                      string `tfsdk:"id" json:"id,omitempty"`
	AvailableIPAddressCount int64  `tfsdk:"available_ip_address_count" json:"available_ip_address_count,omitempty"`
}

type ClassInterface struct {
	NetworkCardIndex int64  `tfsdk:"network_card_index" json:"network_card_index,omitempty"`
	DeviceIndex      int64  `tfsdk:"device_index" json:"device_index,omitempty"`
	InterfaceType    string `tfsdk:"interface_type" json:"interface_type,omitempty"`
}

type ClassNetworking struct {
	PrefixDelegation      bool  `tfsdk:"prefix_delegation" json:"prefix_delegation,omitempty"`
	CustomNetworking      bool  `tfsdk:"custom_networking" json:"custom_networking,omitempty"`
	SecurityGroupsForPods bool  `tfsdk:"security_groups_for_pods" json:"security_groups_for_pods,omitempty"`
	ReservedENIs          int64 `tfsdk:"reserved_enis" json:"reserved_enis,omitempty"`
	// The VPC CNI's warm-pool targets; null: the CNI's default.
	WarmENITarget    *int64 `tfsdk:"warm_eni_target" json:"warm_eni_target,omitempty"`
	WarmIPTarget     *int64 `tfsdk:"warm_ip_target" json:"warm_ip_target,omitempty"`
	MinimumIPTarget  *int64 `tfsdk:"minimum_ip_target" json:"minimum_ip_target,omitempty"`
	WarmPrefixTarget *int64 `tfsdk:"warm_prefix_target" json:"warm_prefix_target,omitempty"`
}

type ClassKubelet struct {
	MaxPods        *int64            `tfsdk:"max_pods" json:"max_pods,omitempty"`
	PodsPerCore    *int64            `tfsdk:"pods_per_core" json:"pods_per_core,omitempty"`
	ClusterDNS     []string          `tfsdk:"cluster_dns" json:"cluster_dns"`
	SystemReserved map[string]string `tfsdk:"system_reserved" json:"system_reserved"`
	KubeReserved   map[string]string `tfsdk:"kube_reserved" json:"kube_reserved"`
	EvictionHard   map[string]string `tfsdk:"eviction_hard" json:"eviction_hard"`
	// MaxPodsExpression is v1.15's CEL maxPods: a pool evaluates it per instance type.
	MaxPodsExpression *string `tfsdk:"max_pods_expression" json:"max_pods_expression,omitempty"`
}

type ClassMetadata struct {
	HTTPEndpoint            string `tfsdk:"http_endpoint" json:"http_endpoint,omitempty"`
	HTTPProtocolIPv6        string `tfsdk:"http_protocol_ipv6" json:"http_protocol_ipv6,omitempty"`
	HTTPPutResponseHopLimit int64  `tfsdk:"http_put_response_hop_limit" json:"http_put_response_hop_limit,omitempty"`
	HTTPTokens              string `tfsdk:"http_tokens" json:"http_tokens,omitempty"`
}

type ClassBlockDevice struct {
	DeviceName *string   `tfsdk:"device_name" json:"device_name,omitempty"`
	RootVolume bool      `tfsdk:"root_volume" json:"root_volume,omitempty"`
	EBS        *ClassEBS `tfsdk:"ebs" json:"ebs,omitempty"`
}

type ClassEBS struct {
	DeleteOnTermination *bool   `tfsdk:"delete_on_termination" json:"delete_on_termination,omitempty"`
	Encrypted           *bool   `tfsdk:"encrypted" json:"encrypted,omitempty"`
	IOPS                *int64  `tfsdk:"iops" json:"iops,omitempty"`
	KMSKeyID            *string `tfsdk:"kms_key_id" json:"kms_key_id,omitempty"`
	SnapshotID          *string `tfsdk:"snapshot_id" json:"snapshot_id,omitempty"`
	Throughput          *int64  `tfsdk:"throughput" json:"throughput,omitempty"`
	VolumeSizeGiB       *int64  `tfsdk:"volume_size_gib" json:"volume_size_gib,omitempty"`
	VolumeType          *string `tfsdk:"volume_type" json:"volume_type,omitempty"`
}

// Value mirrors the class into the node class's `resolved` value, leaving defaults null
// (ClassValue.Class reads null as the default). Empty lists and maps are null too, except network_interfaces,
// where an empty list and null differ ("no interfaces" and "not configured").
func (c Class) Value() ClassValue {
	out := ClassValue{
		Name: c.Name, AMIFamily: c.AMIFamily, AMIUnresolved: emptyNil(c.AMIUnresolved), SecurityGroupIDs: nilIfEmpty(c.SecurityGroupIDs),
		AssociatePublicIPAddress: c.AssociatePublicIPAddress, IPPrefixCount: toInt64Ptr(c.IPPrefixCount), EFA: trueNil(c.EFA),
		DetailedMonitoring: trueNil(c.DetailedMonitoring), UserData: emptyNil(c.UserData), InstanceProfile: emptyNil(c.InstanceProfile),
		Hash: emptyNil(c.Hash), HashVersion: emptyNil(c.HashVersion), CapacityReservationIDs: nilIfEmpty(c.CapacityReservationIDs),
		PlacementGroupID: emptyNil(c.PlacementGroupID), CapacityReservations: ClassReservationsOf(c.Reservations),
		PlacementGroupStrategy: c.PlacementGroupStrategy, NestedVirtualization: c.NestedVirtualization, NitroEnclaves: c.NitroEnclaves,
		ConnectionTracking: c.ConnectionTracking,
	}
	if len(c.Tags) > 0 {
		out.Tags = c.Tags
	}
	for _, a := range c.AMIs {
		out.AMIs = append(out.AMIs, ClassAMI{ID: a.ID, Architecture: a.Architecture, Variant: emptyNil(string(a.Variant))})
	}
	if n := c.CNI; n.PrefixDelegation || n.CustomNetworking || n.SecurityGroupsForPods || n.ReservedENIs != 0 || n.Warm != (capacity.WarmTargets{}) {
		out.Networking = &ClassNetworking{PrefixDelegation: n.PrefixDelegation, CustomNetworking: n.CustomNetworking,
			SecurityGroupsForPods: n.SecurityGroupsForPods, ReservedENIs: int64(n.ReservedENIs),
			WarmENITarget: toInt64Ptr(n.Warm.ENI), WarmIPTarget: toInt64Ptr(n.Warm.IP),
			MinimumIPTarget: toInt64Ptr(n.Warm.MinimumIP), WarmPrefixTarget: toInt64Ptr(n.Warm.Prefix)}
	}
	if k := c.Kubelet; c.CNI.MaxPods != nil || c.CNI.PodsPerCore != nil || c.CNI.MaxPodsExpression != "" || len(k.ClusterDNS) > 0 ||
		len(k.SystemReserved) > 0 || len(k.KubeReserved) > 0 || len(k.EvictionHard) > 0 {
		out.Kubelet = &ClassKubelet{MaxPods: toInt64Ptr(c.CNI.MaxPods), PodsPerCore: toInt64Ptr(c.CNI.PodsPerCore), ClusterDNS: k.ClusterDNS,
			SystemReserved: k.SystemReserved, KubeReserved: k.KubeReserved, EvictionHard: k.EvictionHard}
		if c.CNI.MaxPodsExpression != "" {
			out.Kubelet.MaxPodsExpression = &c.CNI.MaxPodsExpression
		}
	}
	if mo := c.MetadataOptions; mo != defaultMetadataOptions() {
		out.MetadataOptions = &ClassMetadata{HTTPEndpoint: mo.HTTPEndpoint, HTTPProtocolIPv6: mo.HTTPProtocolIPv6,
			HTTPPutResponseHopLimit: int64(mo.HTTPPutResponseHopLimit), HTTPTokens: mo.HTTPTokens}
	}
	for _, sn := range c.Subnets {
		if out.Subnets == nil {
			out.Subnets = map[string]ClassSubnet{}
		}
		out.Subnets[sn.ID] = ClassSubnet{Zone: sn.Zone, ZoneID: sn.ZoneID, AvailableIPAddressCount: int64(sn.AvailableIPs)}
	}
	for _, p := range c.PodSubnets {
		if out.PodSubnets == nil {
			out.PodSubnets = map[string]ClassPodSubnet{}
		}
		out.PodSubnets[p.Zone] = ClassPodSubnet{ID: p.ID, AvailableIPAddressCount: int64(p.AvailableIPs)}
	}
	if c.NetworkInterfaces != nil {
		out.NetworkInterfaces = []ClassInterface{}
		for _, ni := range c.NetworkInterfaces {
			out.NetworkInterfaces = append(out.NetworkInterfaces, ClassInterface{NetworkCardIndex: int64(ni.NetworkCardIndex),
				DeviceIndex: int64(ni.DeviceIndex), InterfaceType: ni.InterfaceType})
		}
	}
	for _, b := range c.BlockDevices {
		rb := ClassBlockDevice{DeviceName: emptyNil(b.DeviceName), RootVolume: b.RootVolume}
		if b.DeleteOnTermination != nil || b.Encrypted != nil || b.IOPS != nil || b.KMSKeyID != "" || b.SnapshotID != "" ||
			b.Throughput != nil || b.VolumeSizeGiB != 0 || b.VolumeType != "" {
			rb.EBS = &ClassEBS{DeleteOnTermination: b.DeleteOnTermination, Encrypted: b.Encrypted, IOPS: toInt64Ptr(b.IOPS),
				KMSKeyID: emptyNil(b.KMSKeyID), SnapshotID: emptyNil(b.SnapshotID), Throughput: toInt64Ptr(b.Throughput),
				VolumeSizeGiB: zeroNil(b.VolumeSizeGiB), VolumeType: emptyNil(b.VolumeType)}
		}
		out.BlockDeviceMappings = append(out.BlockDeviceMappings, rb)
	}
	return out
}

// defaultMetadataOptions are Karpenter's defaults, which `resolved` leaves null.
// Class is the way back from the node class's `resolved` value (Class.Value) to the planner's
// Class: a field-for-field mirror, null read as the default classTF left out.
// Subnets come back sorted by id (the map's order); the planner picks per zone by free IPs.
func (rc ClassValue) Class() Class {
	c := Class{
		Name: rc.Name, AMIFamily: rc.AMIFamily, AMIUnresolved: deref(rc.AMIUnresolved), SecurityGroupIDs: rc.SecurityGroupIDs,
		AssociatePublicIPAddress: rc.AssociatePublicIPAddress, IPPrefixCount: derefInt(rc.IPPrefixCount), EFA: rc.EFA != nil && *rc.EFA,
		MetadataOptions: defaultMetadataOptions(), DetailedMonitoring: rc.DetailedMonitoring != nil && *rc.DetailedMonitoring,
		UserData: deref(rc.UserData), Tags: rc.Tags, InstanceProfile: deref(rc.InstanceProfile), Hash: deref(rc.Hash),
		HashVersion: deref(rc.HashVersion), CapacityReservationIDs: rc.CapacityReservationIDs, PlacementGroupID: deref(rc.PlacementGroupID),
		Reservations: reservationsOf(rc.CapacityReservations), PlacementGroupStrategy: rc.PlacementGroupStrategy,
		NestedVirtualization: rc.NestedVirtualization, NitroEnclaves: rc.NitroEnclaves, ConnectionTracking: rc.ConnectionTracking,
	}
	if c.Hash != "" && c.HashVersion == "" { // recorded before the version was: only v5 was computed then
		c.HashVersion = "v5"
	}
	if a := rc.AutoMode; a != nil {
		c.AutoMode = &capacity.AutoMode{IPv4PrefixSize: a.IPv4PrefixSize, PodSubnets: len(rc.PodSubnets) > 0}
		c.AutoModeStaticAddresses = a.StaticPodAddresses
	}
	if k := rc.Kubelet; k != nil {
		c.Kubelet = Kubelet{ClusterDNS: k.ClusterDNS, SystemReserved: k.SystemReserved, KubeReserved: k.KubeReserved, EvictionHard: k.EvictionHard}
	}
	if mo := rc.MetadataOptions; mo != nil {
		c.MetadataOptions = MetadataOptions{HTTPEndpoint: mo.HTTPEndpoint, HTTPProtocolIPv6: mo.HTTPProtocolIPv6,
			HTTPTokens: mo.HTTPTokens, HTTPPutResponseHopLimit: int(mo.HTTPPutResponseHopLimit)}
	}
	for _, a := range rc.AMIs {
		c.AMIs = append(c.AMIs, nodeclass.AMI{ID: a.ID, Architecture: a.Architecture, Variant: nodeclass.AMIVariant(deref(a.Variant))})
	}
	for _, id := range slices.Sorted(maps.Keys(rc.Subnets)) {
		s := rc.Subnets[id]
		c.Subnets = append(c.Subnets, Subnet{ID: id, Zone: s.Zone, ZoneID: s.ZoneID, AvailableIPs: int(s.AvailableIPAddressCount)})
	}
	for _, zone := range slices.Sorted(maps.Keys(rc.PodSubnets)) {
		p := rc.PodSubnets[zone]
		c.PodSubnets = append(c.PodSubnets, PodSubnet{Zone: zone, ID: p.ID, AvailableIPs: int(p.AvailableIPAddressCount)})
	}
	if rc.NetworkInterfaces != nil {
		c.NetworkInterfaces = []capacity.Interface{}
		for _, ni := range rc.NetworkInterfaces {
			c.NetworkInterfaces = append(c.NetworkInterfaces, capacity.Interface{NetworkCardIndex: int(ni.NetworkCardIndex),
				DeviceIndex: int(ni.DeviceIndex), InterfaceType: ni.InterfaceType})
		}
	}
	for _, b := range rc.BlockDeviceMappings {
		bd := BlockDevice{DeviceName: deref(b.DeviceName), RootVolume: b.RootVolume}
		if e := b.EBS; e != nil {
			bd.DeleteOnTermination, bd.Encrypted, bd.IOPS = e.DeleteOnTermination, e.Encrypted, derefInt(e.IOPS)
			bd.KMSKeyID, bd.SnapshotID, bd.Throughput = deref(e.KMSKeyID), deref(e.SnapshotID), derefInt(e.Throughput)
			bd.VolumeSizeGiB, bd.VolumeType = int(derefInt64(e.VolumeSizeGiB)), deref(e.VolumeType)
		}
		c.BlockDevices = append(c.BlockDevices, bd)
	}
	c.CNI = capacity.Settings{AMIFamily: rc.AMIFamily, NetworkInterfaces: c.NetworkInterfaces}
	if n := rc.Networking; n != nil {
		c.CNI.PrefixDelegation, c.CNI.CustomNetworking = n.PrefixDelegation, n.CustomNetworking
		c.CNI.SecurityGroupsForPods, c.CNI.ReservedENIs = n.SecurityGroupsForPods, int(n.ReservedENIs)
		c.CNI.Warm = capacity.WarmTargets{ENI: derefInt(n.WarmENITarget), IP: derefInt(n.WarmIPTarget),
			MinimumIP: derefInt(n.MinimumIPTarget), Prefix: derefInt(n.WarmPrefixTarget)}
	}
	if k := rc.Kubelet; k != nil {
		c.CNI.MaxPods, c.CNI.PodsPerCore = derefInt(k.MaxPods), derefInt(k.PodsPerCore)
		if k.MaxPodsExpression != nil {
			c.CNI.MaxPodsExpression, c.CNI.MaxPodsEval = *k.MaxPodsExpression, nodeclass.EvaluatorFor(*k.MaxPodsExpression)
		}
	}
	return c
}

func defaultMetadataOptions() MetadataOptions {
	d := nodeclass.DefaultMetadataOptions()
	return MetadataOptions{HTTPEndpoint: d.HTTPEndpoint, HTTPProtocolIPv6: d.HTTPProtocolIPv6, HTTPTokens: d.HTTPTokens,
		HTTPPutResponseHopLimit: d.HTTPPutResponseHopLimit}
}

func trueNil(b bool) *bool {
	if !b {
		return nil
	}
	return &b
}

func nilIfEmpty(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return s
}

func emptyNil(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func toInt64Ptr(p *int) *int64 {
	if p == nil {
		return nil
	}
	v := int64(*p)
	return &v
}

func zeroNil(v int) *int64 {
	if v == 0 {
		return nil
	}
	n := int64(v)
	return &n
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

func derefInt(p *int64) *int {
	if p == nil {
		return nil
	}
	v := int(*p)
	return &v
}

func derefInt64(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}

// ClassReservationsOf is the resolution's form of reservations (nil without any).
func ClassReservationsOf(rs []reservations.Reservation) []ClassReservation {
	var out []ClassReservation
	for _, r := range rs {
		out = append(out, ClassReservation{ID: r.ID, InstanceType: r.InstanceType, Zone: r.Zone, OwnerID: r.OwnerID,
			InstanceMatchCriteria: r.MatchCriteria, ReservationType: r.Type, Available: int64(r.Available), Total: int64(r.Total),
			Start: formatTime(r.Start), End: formatTime(r.End), Interruptible: r.Interruptible})
	}
	return out
}

func reservationsOf(cs []ClassReservation) []reservations.Reservation {
	var out []reservations.Reservation
	for _, c := range cs {
		out = append(out, reservations.Reservation{ID: c.ID, InstanceType: c.InstanceType, Zone: c.Zone, OwnerID: c.OwnerID,
			MatchCriteria: c.InstanceMatchCriteria, Type: c.ReservationType, Available: int(c.Available), Total: int(c.Total),
			Start: parseTime(c.Start), End: parseTime(c.End), Interruptible: c.Interruptible})
	}
	return out
}

func formatTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

// parseTime reads formatTime's text; text it did not write reads as no time.
func parseTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}
	}
	return t
}
