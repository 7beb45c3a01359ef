package adopt

import (
	"maps"
	"slices"

	"github.com/nodeplane/terraform-provider-karpenter/internal/automode"
	"github.com/nodeplane/terraform-provider-karpenter/internal/discovery"
	"github.com/nodeplane/terraform-provider-karpenter/internal/manifest"
)

// AutoModeClass is a live EKS Auto Mode NodeClass read as a karpenter_auto_mode_node_class.
type AutoModeClass struct {
	Config automode.Config
	Adopted
	// Status reports that the object carries a status (EKS Auto Mode's conditions and the
	// subnets, security groups and instance profile it resolved): the cluster's, not adopted.
	Status bool
}

// ReadAutoModeClass reads a live eks.amazonaws.com/v1 NodeClass. The resource renders no object
// labels or annotations, so those the object has are unexpressed, by path, like the spec fields
// the configuration cannot carry (fields the EKS user guide added after the provider's schema).
func ReadAutoModeClass(obj Object) (AutoModeClass, error) {
	if err := checkKind(obj, manifest.AutoModeNodeClassAPIVersion, manifest.AutoModeNodeClassKind); err != nil {
		return AutoModeClass{}, err
	}
	live := specOf(obj)
	var spec manifest.AutoModeNodeClassSpec
	if err := decodeInto(live, &spec, "spec"); err != nil {
		return AutoModeClass{}, err
	}
	c := AutoModeClass{Config: autoModeConfig(nameOf(obj), spec)}
	_, c.Status = obj["status"]
	if meta := metadataOf(obj, &c.Adopted); meta != nil {
		c.Unexpressed = append(c.Unexpressed, metadataPaths("labels", meta.Labels)...)
		c.Unexpressed = append(c.Unexpressed, metadataPaths("annotations", meta.Annotations)...)
	}
	doc, err := c.Config.Manifest()
	if err != nil {
		return AutoModeClass{}, err
	}
	spare, err := unexpressed(live, doc)
	c.Unexpressed = append(spare, c.Unexpressed...)
	return c, err
}

// metadataPaths are the paths of an object's labels or annotations, sorted.
func metadataPaths(field string, m map[string]string) []string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out = append(out, "metadata."+field+key(k))
	}
	return out
}

// autoModeConfig is the inverse of automode.Config.Manifest.
func autoModeConfig(name string, s manifest.AutoModeNodeClassSpec) automode.Config {
	c := automode.Config{Name: name, Role: s.Role, InstanceProfile: s.InstanceProfile,
		SubnetSelectorTerms: subnetTermsOf(s.SubnetSelectorTerms), PodSubnetSelectorTerms: subnetTermsOf(s.PodSubnetSelectorTerms),
		SNATPolicy: s.SNATPolicy, NetworkPolicy: s.NetworkPolicy, NetworkPolicyEventLogs: s.NetworkPolicyEventLogs, Tags: s.Tags}
	for _, t := range s.SecurityGroupSelectorTerms {
		c.SecurityGroupSelectorTerms = append(c.SecurityGroupSelectorTerms, discovery.SecurityGroupTerm{ID: t.ID, Name: t.Name, Tags: t.Tags})
	}
	for _, t := range s.PodSecurityGroupSelectorTerms {
		c.PodSecurityGroupSelectorTerms = append(c.PodSecurityGroupSelectorTerms, automode.PodSecurityGroupTerm{ID: t.ID, Tags: t.Tags})
	}
	for _, t := range s.CapacityReservationSelectorTerms {
		c.CapacityReservationSelectorTerms = append(c.CapacityReservationSelectorTerms, automode.ReservationTerm(t))
	}
	if e := s.EphemeralStorage; e != nil {
		c.EphemeralStorage = &automode.EphemeralStorage{Size: e.Size, IOPS: e.IOPS, Throughput: e.Throughput, KMSKeyID: e.KMSKeyID}
	}
	if a := s.AdvancedNetworking; a != nil {
		c.AdvancedNetworking = &automode.AdvancedNetworking{AssociatePublicIPAddress: a.AssociatePublicIPAddress, HTTPSProxy: a.HTTPSProxy,
			NoProxy: slices.Clone(a.NoProxy), IPv4PrefixSize: a.IPv4PrefixSize, EnableV4Egress: a.EnableV4Egress}
		for _, i := range a.NetworkInterfaces {
			c.AdvancedNetworking.NetworkInterfaces = append(c.AdvancedNetworking.NetworkInterfaces, automode.NetworkInterface(i))
		}
	}
	if p := s.PlacementGroupSelector; p != nil {
		c.PlacementGroupSelector = &discovery.PlacementGroupSelector{ID: p.ID, Name: p.Name}
	}
	if a := s.AdvancedSecurity; a != nil {
		c.AdvancedSecurity = &automode.AdvancedSecurity{FIPS: a.FIPS, KernelLockdown: a.KernelLockdown}
	}
	for _, b := range s.CertificateBundles {
		c.CertificateBundles = append(c.CertificateBundles, automode.CertificateBundle(b))
	}
	return c
}

func subnetTermsOf(in []manifest.SubnetSelectorTerm) []discovery.SubnetTerm {
	var out []discovery.SubnetTerm
	for _, t := range in {
		out = append(out, discovery.SubnetTerm{ID: t.ID, Tags: t.Tags})
	}
	return out
}
