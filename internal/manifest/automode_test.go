package manifest

import (
	"strings"
	"testing"
)

func autoModeClass() AutoModeNodeClass {
	iops, throughput := int64(3000), int64(125)
	yes := true
	return AutoModeNodeClass{Name: "private-compute", Spec: AutoModeNodeClassSpec{
		Role:                          "MyNodeRole",
		SubnetSelectorTerms:           []SubnetSelectorTerm{{Tags: map[string]string{"Name": "private-subnet", "kubernetes.io/role/internal-elb": "1"}}, {ID: "subnet-0123456789abcdef0"}},
		SecurityGroupSelectorTerms:    []SecurityGroupSelectorTerm{{Tags: map[string]string{"Name": "eks-cluster-sg"}}, {ID: "sg-0123456789abcdef0"}, {Name: "eks-cluster-security-group"}},
		PodSubnetSelectorTerms:        []SubnetSelectorTerm{{Tags: map[string]string{"Name": "pod-subnet"}}},
		PodSecurityGroupSelectorTerms: []SecurityGroupSelectorTerm{{Tags: map[string]string{"Name": "eks-pod-sg"}}},
		CapacityReservationSelectorTerms: []AutoModeReservationTerm{{ID: "cr-56fac701cc1951b03"},
			{Tags: map[string]string{"Name": "My Capacity Reservation"}, Owner: "012345678901"}},
		SNATPolicy: "Random", NetworkPolicy: "DefaultAllow", NetworkPolicyEventLogs: "Disabled",
		EphemeralStorage:   &AutoModeEphemeralStorage{Size: "80Gi", IOPS: &iops, Throughput: &throughput, KMSKeyID: "arn:aws:kms:us-west-2:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab"},
		Tags:               map[string]string{"team": "platform"},
		AdvancedNetworking: &AutoModeAdvancedNetworking{AssociatePublicIPAddress: &yes, HTTPSProxy: "http://192.0.2.4:3128", NoProxy: []string{"localhost", ".internal"}, IPv4PrefixSize: "32"},
		AdvancedSecurity:   &AutoModeAdvancedSecurity{FIPS: &yes, KernelLockdown: "integrity"},
		CertificateBundles: []AutoModeCertificateBundle{{Name: "custom-cert", Data: "base64-encoded-cert-data"}},
	}}
}

func i64(v int64) *int64 { return &v }

// The guide's static interface layout and placement group admit; each of their rules refuses.
func TestAutoModeNetworkInterfacesAndPlacementGroup(t *testing.T) {
	layout := func() AutoModeNodeClass {
		nc := autoModeClass()
		nc.Spec.AdvancedNetworking.AssociatePublicIPAddress = nil
		nc.Spec.AdvancedNetworking.NetworkInterfaces = []AutoModeNetworkInterface{
			{NetworkCardIndex: 0, DeviceIndex: 0, InterfaceType: "interface", SecondaryIPv4Count: i64(10)},
			{NetworkCardIndex: 0, DeviceIndex: 1, InterfaceType: "interface", SecondaryIPv4PrefixCount: i64(2)},
			{NetworkCardIndex: 1, DeviceIndex: 0, InterfaceType: "efa-only"},
		}
		nc.Spec.PlacementGroupSelector = &PlacementGroupSelector{Name: "targeted-pg"}
		return nc
	}
	admit := func(nc AutoModeNodeClass) []Violation {
		doc, err := RenderAutoModeNodeClass(nc)
		if err != nil {
			t.Fatal(err)
		}
		v, err := Admit(doc)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	if v := admit(layout()); len(v) > 0 {
		t.Fatalf("the guide's layout is refused: %v", v)
	}
	for name, c := range map[string]struct {
		edit  func(*AutoModeNodeClassSpec)
		field string
	}{
		"primary efa-only": {func(s *AutoModeNodeClassSpec) { s.AdvancedNetworking.NetworkInterfaces[0].InterfaceType = "efa-only" }, "spec.advancedNetworking.networkInterfaces"},
		"both counts": {func(s *AutoModeNodeClassSpec) {
			s.AdvancedNetworking.NetworkInterfaces[0].SecondaryIPv4PrefixCount = i64(1)
		}, "spec.advancedNetworking.networkInterfaces[0]"},
		"count on card 1":        {func(s *AutoModeNodeClassSpec) { s.AdvancedNetworking.NetworkInterfaces[2].SecondaryIPv4Count = i64(1) }, "spec.advancedNetworking.networkInterfaces[2]"},
		"public IP, 3 ENIs":      {func(s *AutoModeNodeClassSpec) { yes := true; s.AdvancedNetworking.AssociatePublicIPAddress = &yes }, "spec.advancedNetworking"},
		"group id and name":      {func(s *AutoModeNodeClassSpec) { s.PlacementGroupSelector.ID = "pg-02465754522cda020" }, "spec.placementGroupSelector"},
		"group id not pg-":       {func(s *AutoModeNodeClassSpec) { s.PlacementGroupSelector = &PlacementGroupSelector{ID: "sg-1"} }, "spec.placementGroupSelector.id"},
		"unknown interface type": {func(s *AutoModeNodeClassSpec) { s.AdvancedNetworking.NetworkInterfaces[2].InterfaceType = "efa" }, "spec.advancedNetworking.networkInterfaces[2].interfaceType"},
	} {
		nc := layout()
		c.edit(&nc.Spec)
		v := admit(nc)
		if len(v) == 0 || v[0].Field.String() != c.field {
			t.Errorf("%s: violations %v, want one on %s", name, v, c.field)
		}
	}
}

func TestAutoModeNodeClassRendersAndAdmits(t *testing.T) {
	doc, err := RenderAutoModeNodeClass(autoModeClass())
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"apiVersion: eks.amazonaws.com/v1\nkind: NodeClass\n", "  name: private-compute\n", "    kmsKeyID: arn:aws:kms:",
		"    ipv4PrefixSize: \"32\"\n", "      owner: \"012345678901\"\n"} {
		if !strings.Contains(doc, want) {
			t.Errorf("rendered NodeClass lacks %q:\n%s", want, doc)
		}
	}
	v, err := Admit(doc)
	if err != nil || len(v) > 0 {
		t.Fatalf("the user guide's full NodeClass is refused: %v %v\n%s", v, err, doc)
	}
}

func TestAutoModeNodeClassRules(t *testing.T) {
	cases := map[string]struct {
		edit  func(*AutoModeNodeClassSpec)
		field string
	}{
		"role and instance profile":   {func(s *AutoModeNodeClassSpec) { s.InstanceProfile = "eks-profile" }, "spec"},
		"neither role nor profile":    {func(s *AutoModeNodeClassSpec) { s.Role = "" }, "spec"},
		"pod subnets alone":           {func(s *AutoModeNodeClassSpec) { s.PodSecurityGroupSelectorTerms = nil }, "spec"},
		"no subnet terms":             {func(s *AutoModeNodeClassSpec) { s.SubnetSelectorTerms = nil }, "spec.subnetSelectorTerms"},
		"subnet id and tags":          {func(s *AutoModeNodeClassSpec) { s.SubnetSelectorTerms[1].Tags = map[string]string{"a": "b"} }, "spec.subnetSelectorTerms[1]"},
		"bad subnet id":               {func(s *AutoModeNodeClassSpec) { s.SubnetSelectorTerms[1].ID = "sg-1" }, "spec.subnetSelectorTerms[1].id"},
		"group id and name":           {func(s *AutoModeNodeClassSpec) { s.SecurityGroupSelectorTerms[2].ID = "sg-1" }, "spec.securityGroupSelectorTerms[2]"},
		"owner without tags":          {func(s *AutoModeNodeClassSpec) { s.CapacityReservationSelectorTerms[0].Owner = "012345678901" }, "spec.capacityReservationSelectorTerms[0]"},
		"owner not an account":        {func(s *AutoModeNodeClassSpec) { s.CapacityReservationSelectorTerms[1].Owner = "me" }, "spec.capacityReservationSelectorTerms[1].owner"},
		"snat policy":                 {func(s *AutoModeNodeClassSpec) { s.SNATPolicy = "random" }, "spec.snatPolicy"},
		"network policy":              {func(s *AutoModeNodeClassSpec) { s.NetworkPolicy = "Deny" }, "spec.networkPolicy"},
		"event logs":                  {func(s *AutoModeNodeClassSpec) { s.NetworkPolicyEventLogs = "On" }, "spec.networkPolicyEventLogs"},
		"storage too large (Gi)":      {func(s *AutoModeNodeClassSpec) { s.EphemeralStorage.Size = "59001Gi" }, "spec.ephemeralStorage.size"},
		"storage too large (T)":       {func(s *AutoModeNodeClassSpec) { s.EphemeralStorage.Size = "65T" }, "spec.ephemeralStorage.size"},
		"storage unit":                {func(s *AutoModeNodeClassSpec) { s.EphemeralStorage.Size = "80Mi" }, "spec.ephemeralStorage.size"},
		"iops below":                  {func(s *AutoModeNodeClassSpec) { *s.EphemeralStorage.IOPS = 2999 }, "spec.ephemeralStorage.iops"},
		"throughput above":            {func(s *AutoModeNodeClassSpec) { *s.EphemeralStorage.Throughput = 1001 }, "spec.ephemeralStorage.throughput"},
		"restricted tag":              {func(s *AutoModeNodeClassSpec) { s.Tags["eks.amazonaws.com/nodeclass"] = "x" }, "spec.tags"},
		"restricted cluster tag":      {func(s *AutoModeNodeClassSpec) { s.Tags["kubernetes.io/cluster/prod"] = "owned" }, "spec.tags"},
		"prefix size":                 {func(s *AutoModeNodeClassSpec) { s.AdvancedNetworking.IPv4PrefixSize = "28" }, "spec.advancedNetworking.ipv4PrefixSize"},
		"proxy too long":              {func(s *AutoModeNodeClassSpec) { s.AdvancedNetworking.HTTPSProxy = strings.Repeat("p", 256) }, "spec.advancedNetworking.httpsProxy"},
		"kernel lockdown":             {func(s *AutoModeNodeClassSpec) { s.AdvancedSecurity.KernelLockdown = "Integrity" }, "spec.advancedSecurity.kernelLockdown"},
		"certificate bundle, no data": {func(s *AutoModeNodeClassSpec) { s.CertificateBundles[0].Data = "" }, "spec.certificateBundles[0].data"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			nc := autoModeClass()
			c.edit(&nc.Spec)
			doc, err := RenderAutoModeNodeClass(nc)
			if err != nil {
				t.Fatal(err)
			}
			v, err := Admit(doc)
			if err != nil {
				t.Fatal(err)
			}
			var fields []string
			for _, x := range v {
				fields = append(fields, x.Field.String())
			}
			if len(v) == 0 || !strings.HasPrefix(strings.Join(fields, " "), c.field) {
				t.Errorf("violations %v, want one on %s", v, c.field)
			}
		})
	}
}

func TestAutoModeUnknownFieldAndFindings(t *testing.T) {
	doc, err := RenderAutoModeNodeClass(autoModeClass())
	if err != nil {
		t.Fatal(err)
	}
	doc = strings.Replace(doc, "spec:\n", "spec:\n  amiSelectorTerms:\n    - alias: al2023@latest\n", 1)
	v, err := Admit(doc)
	if err != nil || len(v) != 1 || !strings.Contains(v[0].Message, "user guide documents no such field") {
		t.Fatalf("violations %v (%v), want the unknown amiSelectorTerms", v, err)
	}
	f := Findings(DefaultVersion, AutoModeNodeClassKind, v, nil)
	if len(f) != 1 || f[0].Path.String() != "ami_selector_terms" || !strings.Contains(f[0].Message, AutoModeSchemaFile) {
		t.Errorf("findings %+v", f)
	}
}
