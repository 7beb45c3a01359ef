package nodeclass

import (
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strings"

	"github.com/nodeplane/terraform-provider-karpenter/internal/kubeletconfig"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
	"github.com/nodeplane/terraform-provider-karpenter/internal/capacity"
	"github.com/nodeplane/terraform-provider-karpenter/internal/discovery"

	"k8s.io/apimachinery/pkg/util/validation"
)

// FieldError is a problem at an attribute path, e.g. `network_interfaces[1].interface_type`
// or `tags["aws:foo"]`: the findings every pure package reports.
type FieldError = attrpath.Finding

// Limits from the EC2NodeClass CRD.
const (
	MaxNetworkInterfaces   = 150
	MaxBlockDeviceMappings = 50
	MaxAMITerms            = 30
)

// MaxUserDataBytes is EC2's limit on user data: 16 KB of raw data, before base64 encoding.
const MaxUserDataBytes = 16 * 1024

var (
	aliasRE       = regexp.MustCompile(`^[a-zA-Z0-9]+@.+$`)
	amiIDRE       = regexp.MustCompile(`^ami-[0-9a-z]+$`)
	quantityRE    = regexp.MustCompile(`^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$`)
	volumeSizeRE  = regexp.MustCompile(`^((?:[1-9][0-9]{0,3}|[1-4][0-9]{4}|[5][0-8][0-9]{3}|59000)Gi|(?:[1-9][0-9]{0,3}|[1-5][0-9]{4}|[6][0-3][0-9]{3}|64000)G|(?:[1-9]|[1-5][0-7]|58)Ti|(?:[1-9]|[1-5][0-9]|6[0-3]|64)T)$`)
	percentRE     = regexp.MustCompile(`^(\d{1,2}(\.\d{1,2})?|100(\.0{1,2})?)%$`)
	durationRE    = regexp.MustCompile(`^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$`)
	aliasFamilies = map[string]string{
		"al2": capacity.FamilyAL2, "al2023": capacity.FamilyAL2023, "bottlerocket": capacity.FamilyBottlerocket,
		"windows2019": capacity.FamilyWindows2019, "windows2022": capacity.FamilyWindows2022, "windows2025": capacity.FamilyWindows2025,
	}
	reservedResources = []string{"cpu", "memory", "ephemeral-storage", "pid"}
	evictionSignals   = []string{"memory.available", "nodefs.available", "nodefs.inodesFree", "imagefs.available", "imagefs.inodesFree", "pid.available"}
	volumeTypes       = []string{"standard", "io1", "io2", "gp2", "sc1", "st1", "gp3"}
	reservedTagKeys   = []string{"eks:eks-cluster-name", "karpenter.sh/nodepool", "karpenter.sh/nodeclaim", "karpenter.k8s.aws/ec2nodeclass"}
)

// aliasFamily parses `family@version`: the AMI family it implies and whether it is valid.
func aliasFamily(alias string) (family, version string, ok bool) {
	if !aliasRE.MatchString(alias) {
		return "", "", false
	}
	name, ver, _ := strings.Cut(alias, "@")
	f, known := aliasFamilies[name] // case-sensitive, as the CRD's `in [...]` rule
	return f, ver, known
}

// Validate checks every rule that needs no API call. Term lists are validated as given; the
// caller substitutes defaults for omitted terms before calling Resolve.
func Validate(s Spec) []FieldError {
	var errs []FieldError
	add := func(p attrpath.Path, format string, args ...any) {
		errs = append(errs, FieldError{Path: p, Message: fmt.Sprintf(format, args...)})
	}

	if msgs := validation.IsDNS1123Subdomain(s.Name); len(msgs) > 0 {
		add(attrpath.Of("name"), "%q is not a valid Kubernetes object name (lower-case DNS subdomain, at most 253 characters): %s", s.Name, strings.Join(msgs, "; "))
	}

	validateAMI(s, add)

	switch {
	case s.Role == "" && s.InstanceProfile == "":
		add(attrpath.Of("role"), "exactly one of `role` and `instance_profile` must be set")
	case s.Role != "" && s.InstanceProfile != "":
		add(attrpath.Of("instance_profile"), "`role` and `instance_profile` are mutually exclusive")
	}

	for _, e := range discovery.ValidateSubnetTerms(s.SubnetTerms) {
		add(attrpath.Of("subnet_selector_terms").Join(e.Path), "%s", e.Message)
	}
	for _, e := range discovery.ValidateSecurityGroupTerms(s.SecurityGroupTerms) {
		add(attrpath.Of("security_group_selector_terms").Join(e.Path), "%s", e.Message)
	}

	if s.IPPrefixCount != nil {
		count32(add, attrpath.Of("ip_prefix_count"), *s.IPPrefixCount)
	}
	validateInterfaces(s, add)

	n := s.Networking
	if n.ReservedENIs < 0 {
		add(attrpath.Of("networking", "reserved_enis"), "must be 0 or more, got %d", n.ReservedENIs)
	}
	for _, e := range capacity.ValidateSettings(capacity.Settings{Warm: n.Warm}) {
		add(attrpath.Of("networking").Join(e.Path), "%s", e.Message)
	}
	if n.CustomNetworking && len(n.PodSubnetTerms) == 0 {
		add(attrpath.Of("networking", "custom_networking", "pod_subnet_selector_terms"), "custom networking needs at least one pod subnet selector term (the ENIConfig subnets)")
	}
	for _, e := range discovery.ValidateSubnetTerms(n.PodSubnetTerms) {
		add(attrpath.Of("networking", "custom_networking", "pod_subnet_selector_terms").Join(e.Path), "%s", e.Message)
	}

	validateKubelet(s.Kubelet, add)
	validateMetadata(s.MetadataOptions, add)
	validateBlockDevices(s.BlockDeviceMappings, add)
	validateLaunchOptions(s, add)

	if s.UserData != nil && len(*s.UserData) > MaxUserDataBytes {
		add(attrpath.Of("user_data"), "user data is %d bytes; EC2 accepts at most %d bytes (16 KB) before base64 encoding", len(*s.UserData), MaxUserDataBytes)
	}
	if s.InstanceStorePolicy != "" && s.InstanceStorePolicy != "RAID0" {
		add(attrpath.Of("instance_store_policy"), "must be \"RAID0\" (or unset), got %q", s.InstanceStorePolicy)
	}
	for _, k := range slices.Sorted(maps.Keys(s.Tags)) {
		p := attrpath.Of("tags").Key(k)
		switch {
		case k == "":
			add(attrpath.Of("tags"), "tag keys must not be empty")
		case strings.HasPrefix(strings.ToLower(k), "aws:"):
			add(p, "tag keys starting with \"aws:\" are reserved by AWS")
		case strings.HasPrefix(k, "kubernetes.io/cluster"):
			add(p, "tag keys starting with \"kubernetes.io/cluster\" are managed by Karpenter")
		case slices.Contains(reservedTagKeys, k):
			add(p, "tag key %q is set by Karpenter and cannot be overridden", k)
		}
	}
	return errs
}

func validateAMI(s Spec, add func(attrpath.Path, string, ...any)) {
	if s.AMIFamily != "" && !capacity.IsFamily(s.AMIFamily) {
		add(attrpath.Of("ami_family"), "unknown AMI family %q; expected one of %s", s.AMIFamily, strings.Join(capacity.Families(), ", "))
	}
	if len(s.AMISelectorTerms) == 0 {
		add(attrpath.Of("ami_selector_terms"), "at least one AMI selector term is required, e.g. [{ alias = \"al2023@latest\" }]")
		return
	}
	aliasFam, hasAlias := "", false
	for i, t := range s.AMISelectorTerms {
		p := attrpath.Of("ami_selector_terms").Index(i)
		if t.Alias == "" && t.ID == "" && t.Name == "" && t.SSMParameter == "" && t.Tags == nil {
			add(p, "a term needs one of `alias`, `id`, `name`, `ssm_parameter` or `tags`")
			continue
		}
		if t.ID != "" {
			if t.Alias != "" || t.Name != "" || t.Owner != "" || t.Tags != nil {
				add(p.Attr("id"), "`id` cannot be combined with `alias`, `name`, `owner` or `tags`")
			}
			if !amiIDRE.MatchString(t.ID) {
				add(p.Attr("id"), "%q is not an AMI id (expected ami-[0-9a-z]+)", t.ID)
			}
		}
		if t.Alias != "" {
			hasAlias = true
			if t.ID != "" || t.Name != "" || t.Owner != "" || t.SSMParameter != "" || t.Tags != nil {
				add(p.Attr("alias"), "`alias` cannot be combined with other fields")
			}
			if len(s.AMISelectorTerms) > 1 {
				add(p.Attr("alias"), "an `alias` term must be the only AMI selector term")
			}
			fam, ver, ok := aliasFamily(t.Alias)
			switch {
			case len(t.Alias) > 30 || !ok:
				add(p.Attr("alias"), "%q is not a valid alias: expected family@version with family in al2, al2023, bottlerocket, windows2019, windows2022, windows2025", t.Alias)
			case capacity.IsWindows(fam) && ver != "latest":
				add(p.Attr("alias"), "Windows aliases only support @latest, got %q", t.Alias)
			default:
				aliasFam = fam
			}
		}
		for _, e := range termTagErrors(t.Tags) {
			add(attrpath.Of("ami_selector_terms").Index(i).Join(e.Path), "%s", e.Message)
		}
	}
	switch {
	case !hasAlias && s.AMIFamily == "":
		add(attrpath.Of("ami_family"), "`ami_family` is required when no AMI selector term is an alias")
	case aliasFam != "" && s.AMIFamily != "" && s.AMIFamily != aliasFam && s.AMIFamily != capacity.FamilyCustom:
		add(attrpath.Of("ami_family"), "`ami_family` %q contradicts the alias family %q (use the same family, Custom, or omit it)", s.AMIFamily, aliasFam)
	}
}

func validateInterfaces(s Spec, add func(attrpath.Path, string, ...any)) {
	ifs := s.NetworkInterfaces
	if ifs == nil {
		return
	}
	if len(ifs) > MaxNetworkInterfaces {
		add(attrpath.Of("network_interfaces"), "at most %d network interfaces, got %d", MaxNetworkInterfaces, len(ifs))
	}
	primary := false
	seen := map[[2]int]int{}
	efaOnlyPerCard := map[int]int{}
	for i, ni := range ifs {
		p := attrpath.Of("network_interfaces").Index(i)
		count32(add, p.Attr("network_card_index"), ni.NetworkCardIndex)
		count32(add, p.Attr("device_index"), ni.DeviceIndex)
		if ni.InterfaceType != capacity.InterfaceTypeInterface && ni.InterfaceType != capacity.InterfaceTypeEFAOnly {
			add(p.Attr("interface_type"), "must be \"interface\" or \"efa-only\", got %q", ni.InterfaceType)
		}
		if ni.NetworkCardIndex == 0 && ni.DeviceIndex == 0 && ni.InterfaceType == capacity.InterfaceTypeInterface {
			primary = true
		}
		key := [2]int{ni.NetworkCardIndex, ni.DeviceIndex}
		if j, dup := seen[key]; dup {
			add(p, "duplicates network_interfaces[%d]: network card %d, device %d", j, ni.NetworkCardIndex, ni.DeviceIndex)
		} else {
			seen[key] = i
		}
		if ni.InterfaceType == capacity.InterfaceTypeEFAOnly {
			efaOnlyPerCard[ni.NetworkCardIndex]++
			if efaOnlyPerCard[ni.NetworkCardIndex] == 2 {
				add(p.Attr("interface_type"), "network card %d already has an efa-only interface; at most one per card", ni.NetworkCardIndex)
			}
		}
	}
	if len(ifs) > 0 && !primary {
		add(attrpath.Of("network_interfaces"), "must include the primary interface: network_card_index = 0, device_index = 0, interface_type = \"interface\"")
	}
	if s.EFA {
		add(attrpath.Of("efa"), "`efa` attaches EFA interfaces on every network card itself; it cannot be combined with `network_interfaces` (list efa-only interfaces there instead)")
	}
	if s.AssociatePublicIPAddress != nil && *s.AssociatePublicIPAddress && len(ifs) > 1 {
		add(attrpath.Of("associate_public_ip_address"), "EC2 rejects a public IP on an instance launched with more than one network interface")
	}
}

// count32 checks a CRD field of format int32 that counts something: the API server does not
// range-check the format, so 3000000000 would be stored and then break Karpenter's decoding.
func count32(add func(attrpath.Path, string, ...any), p attrpath.Path, v int) {
	switch {
	case v < 0:
		add(p, "must be 0 or more, got %d", v)
	case v > math.MaxInt32:
		add(p, "must be at most %d (a 32-bit integer in the CRD), got %d", math.MaxInt32, v)
	}
}

func validateKubelet(k Kubelet, add func(attrpath.Path, string, ...any)) {
	for _, f := range []struct {
		p attrpath.Path
		v *int
	}{{attrpath.Of("kubelet", "max_pods"), k.MaxPods}, {attrpath.Of("kubelet", "pods_per_core"), k.PodsPerCore}, {attrpath.Of("kubelet", "eviction_max_pod_grace_period"), k.EvictionMaxPodGracePeriod}} {
		if f.v != nil {
			count32(add, f.p, *f.v)
		}
	}
	if k.MaxPods != nil && k.PodsPerCore != nil && *k.PodsPerCore > *k.MaxPods && *k.MaxPods > 0 {
		add(attrpath.Of("kubelet", "pods_per_core"), "pods_per_core (%d) cannot exceed max_pods (%d)", *k.PodsPerCore, *k.MaxPods)
	}
	for _, nm := range []struct {
		name string
		m    map[string]string
	}{{"system_reserved", k.SystemReserved}, {"kube_reserved", k.KubeReserved}} {
		name, m := nm.name, nm.m
		for _, key := range slices.Sorted(maps.Keys(m)) {
			p := attrpath.Of("kubelet", name).Key(key)
			if !slices.Contains(reservedResources, key) {
				add(p, "unknown resource %q; expected one of %s", key, strings.Join(reservedResources, ", "))
			}
			// A value that compiles as a CEL expression is a v1.15 one: ValidateForVersion checks it.
			if v := m[key]; strings.HasPrefix(v, "-") || (!quantityRE.MatchString(v) && kubeletconfig.Compile(v) != nil) {
				add(p, "%q is not a non-negative resource quantity (e.g. 100m, 1Gi)", v)
			}
		}
	}
	for _, nm := range []struct {
		name string
		m    map[string]string
	}{{"eviction_hard", k.EvictionHard}, {"eviction_soft", k.EvictionSoft}} {
		name, m := nm.name, nm.m
		for _, key := range slices.Sorted(maps.Keys(m)) {
			p := attrpath.Of("kubelet", name).Key(key)
			if !slices.Contains(evictionSignals, key) {
				add(p, "unknown eviction signal %q; expected one of %s", key, strings.Join(evictionSignals, ", "))
			}
			if v := m[key]; !percentRE.MatchString(v) && (strings.HasPrefix(v, "-") || !quantityRE.MatchString(v)) {
				add(p, "%q is not a percentage or a quantity", v)
			}
		}
	}
	for _, key := range slices.Sorted(maps.Keys(k.EvictionSoftGracePeriod)) {
		p := attrpath.Of("kubelet", "eviction_soft_grace_period").Key(key)
		if !slices.Contains(evictionSignals, key) {
			add(p, "unknown eviction signal %q", key)
		}
		if !durationRE.MatchString(k.EvictionSoftGracePeriod[key]) {
			add(p, "%q is not a duration (e.g. 1m30s)", k.EvictionSoftGracePeriod[key])
		}
		if _, ok := k.EvictionSoft[key]; !ok {
			add(p, "has no matching eviction_soft[%q]", key)
		}
	}
	for _, key := range slices.Sorted(maps.Keys(k.EvictionSoft)) {
		if _, ok := k.EvictionSoftGracePeriod[key]; !ok {
			add(attrpath.Of("kubelet", "eviction_soft").Key(key), "needs a matching eviction_soft_grace_period[%q]", key)
		}
	}
	pct := func(p attrpath.Path, v *int) {
		if v != nil && (*v < 0 || *v > 100) {
			add(p, "must be between 0 and 100, got %d", *v)
		}
	}
	pct(attrpath.Of("kubelet", "image_gc_high_threshold_percent"), k.ImageGCHighThresholdPercent)
	pct(attrpath.Of("kubelet", "image_gc_low_threshold_percent"), k.ImageGCLowThresholdPercent)
	if h, l := k.ImageGCHighThresholdPercent, k.ImageGCLowThresholdPercent; h != nil && l != nil && *h <= *l {
		add(attrpath.Of("kubelet", "image_gc_high_threshold_percent"), "must be greater than image_gc_low_threshold_percent (%d <= %d)", *h, *l)
	}
}

func validateMetadata(m MetadataOptions, add func(attrpath.Path, string, ...any)) {
	enum := func(p attrpath.Path, v string, allowed ...string) {
		if !slices.Contains(allowed, v) {
			add(p, "must be one of %s, got %q", strings.Join(allowed, ", "), v)
		}
	}
	enum(attrpath.Of("metadata_options", "http_endpoint"), m.HTTPEndpoint, "enabled", "disabled")
	enum(attrpath.Of("metadata_options", "http_protocol_ipv6"), m.HTTPProtocolIPv6, "enabled", "disabled")
	enum(attrpath.Of("metadata_options", "http_tokens"), m.HTTPTokens, "required", "optional")
	if m.HTTPPutResponseHopLimit < 1 || m.HTTPPutResponseHopLimit > 64 {
		add(attrpath.Of("metadata_options", "http_put_response_hop_limit"), "must be between 1 and 64, got %d", m.HTTPPutResponseHopLimit)
	}
}

func validateBlockDevices(bdms []BlockDeviceMapping, add func(attrpath.Path, string, ...any)) {
	if len(bdms) > MaxBlockDeviceMappings {
		add(attrpath.Of("block_device_mappings"), "at most %d block device mappings, got %d", MaxBlockDeviceMappings, len(bdms))
	}
	roots := 0
	for i, b := range bdms {
		p := attrpath.Of("block_device_mappings").Index(i)
		if b.RootVolume {
			roots++
			if roots == 2 {
				add(p.Attr("root_volume"), "at most one block device mapping can be the root volume")
			}
		}
		if b.EBS == nil {
			continue
		}
		e := b.EBS
		if e.SnapshotID == "" && e.VolumeSize == "" {
			add(p.Attr("ebs"), "needs `volume_size` or `snapshot_id`")
		}
		if e.VolumeSize != "" && !volumeSizeRE.MatchString(e.VolumeSize) {
			add(p.Attr("ebs", "volume_size"), "%q is not a volume size: use Gi/G (up to 59000Gi) or Ti/T, e.g. \"100Gi\"", e.VolumeSize)
		}
		if e.VolumeType != "" && !slices.Contains(volumeTypes, e.VolumeType) {
			add(p.Attr("ebs", "volume_type"), "must be one of %s, got %q", strings.Join(volumeTypes, ", "), e.VolumeType)
		}
		if e.IOPS != nil && *e.IOPS < 0 {
			add(p.Attr("ebs", "iops"), "must be 0 or more")
		}
		if e.Throughput != nil && *e.Throughput < 0 {
			add(p.Attr("ebs", "throughput"), "must be 0 or more")
		}
		if r := e.VolumeInitializationRate; r != nil {
			if *r < 100 || *r > 300 {
				add(p.Attr("ebs", "volume_initialization_rate"), "must be between 100 and 300 MiB/s, got %d", *r)
			}
			if e.SnapshotID == "" {
				add(p.Attr("ebs", "volume_initialization_rate"), "applies to volumes restored from a snapshot: set `snapshot_id` too")
			}
		}
	}
}

// termTagErrors applies discovery's selector-term tag rules (set means non-empty, at most 20
// tags, no empty key or value) to one term's tags, with paths relative to the term (.tags).
func termTagErrors(tags map[string]string) []attrpath.Finding {
	if tags == nil {
		return nil
	}
	errs := discovery.ValidateSubnetTerms([]discovery.SubnetTerm{{Tags: tags}})
	for j := range errs { // drop the list index of the one-term list
		errs[j].Path = errs[j].Path.Tail()
	}
	return errs
}

// validateLaunchOptions checks the capacity reservation terms, the placement group selector,
// cpu_options and connection_tracking.
func validateLaunchOptions(s Spec, add func(attrpath.Path, string, ...any)) {
	for _, e := range discovery.ValidateCapacityReservationTerms(s.CapacityReservationTerms) {
		add(attrpath.Of("capacity_reservation_selector_terms").Join(e.Path), "%s", e.Message)
	}
	if pg := s.PlacementGroupSelector; pg != nil {
		switch {
		case pg.ID == "" && pg.Name == "":
			add(attrpath.Of("placement_group_selector"), "set `id` (pg-…) or `name`")
		case pg.ID != "" && pg.Name != "":
			add(attrpath.Of("placement_group_selector"), "`id` and `name` are mutually exclusive: set one of them")
		case pg.ID != "" && !discovery.ValidPlacementGroupID(pg.ID):
			add(attrpath.Of("placement_group_selector", "id"), "%q is not a placement group id (expected pg-[0-9a-z]+)", pg.ID)
		}
	}
	if c := s.CPUOptions; c != nil && c.NestedVirtualization != "" && c.NestedVirtualization != "enabled" && c.NestedVirtualization != "disabled" {
		add(attrpath.Of("cpu_options", "nested_virtualization"), "must be \"enabled\" or \"disabled\", got %q", c.NestedVirtualization)
	}
	if ct := s.ConnectionTracking; ct != nil {
		if ct.TCPEstablishedTimeout == nil && ct.UDPStreamTimeout == nil && ct.UDPTimeout == nil {
			add(attrpath.Of("connection_tracking"), "set at least one of `tcp_established_timeout`, `udp_stream_timeout` and `udp_timeout`")
		}
		between := func(p attrpath.Path, v *int, lo, hi int) {
			if v != nil && (*v < lo || *v > hi) {
				add(p, "must be between %d and %d seconds, got %d", lo, hi, *v)
			}
		}
		between(attrpath.Of("connection_tracking", "tcp_established_timeout"), ct.TCPEstablishedTimeout, 60, 432000)
		between(attrpath.Of("connection_tracking", "udp_stream_timeout"), ct.UDPStreamTimeout, 60, 180)
		between(attrpath.Of("connection_tracking", "udp_timeout"), ct.UDPTimeout, 30, 60)
	}
}
