package provider

import (
	"maps"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// configGen draws resource configurations at random within a resource's schema: every
// attribute a configuration may set (never a computed-only one), null or set, with values drawn
// from what the attribute's name suggests (valid and invalid alike), junk of its type, and now
// and then a value known only after apply.
type configGen struct {
	r *rand.Rand
	// unknown is the chance that a value is known only after apply.
	unknown float64
	// clean draws only valid values of the vocabulary, and sets every required attribute.
	clean bool
}

// vocab are the values of an attribute: valid ones, as Karpenter's documentation shows them,
// and the near misses a person writes.
type vocab struct{ valid, invalid []string }

// vocabulary are values by attribute name.
var vocabulary = map[string]vocab{
	"name": {[]string{"default", "general", "gpu", "a", "my-pool.v2"}, []string{"Bad_Name", "", "-x", strings.Repeat("n", 254), "al2023@latest"}},
	"alias": {[]string{"al2023@latest", "al2@latest", "bottlerocket@latest", "windows2022@latest", "al2023@v20260101"},
		[]string{"al2023", "AL2023@latest", "foo@bar", "@latest", "al2023@"}},
	"id": {[]string{"ami-0a1202300000x8664", "ami-0custom000000000001", "subnet-0a000000000000001", "sg-0node0000000000001",
		"cr-0000000000000001", "pg-0000000000000001"}, []string{"ami-0missing", "subnet-0missing", "sg-", "x", ""}},
	"role":             {[]string{worldRole}, []string{"missing-role", "arn:aws:iam::111122223333:role/" + worldRole, ""}},
	"instance_profile": {[]string{"existing-profile"}, []string{"missing-profile", ""}},
	"ami_family":       {[]string{"AL2023", "AL2", "Bottlerocket", "Windows2022", "Custom"}, []string{"al2023", "Ubuntu"}},
	"owner":            {[]string{"self", "amazon", worldAccount}, []string{"123"}},
	"ssm_parameter":    {[]string{"/aws/service/eks/optimized-ami/1.33/amazon-linux-2023/x86_64/standard/recommended/image_id"}, []string{"/mine/ami", ""}},
	"key": {[]string{"karpenter.sh/capacity-type", "karpenter.k8s.aws/instance-category", "karpenter.k8s.aws/instance-generation",
		"node.kubernetes.io/instance-type", "kubernetes.io/arch", "topology.kubernetes.io/zone", "kubernetes.io/os",
		"karpenter.k8s.aws/instance-cpu", "karpenter.k8s.aws/instance-family", "team", "example.com/gpu",
		"karpenter.k8s.aws/capacity-reservation-id"}, []string{"karpenter.sh/nodepool", "kubernetes.io/hostname", "Bad Key", ""}},
	"operator": {[]string{"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt", "Gte", "Lte"}, []string{"in", ""}},
	"values": {[]string{"on-demand", "spot", "reserved", "c", "m", "r", "2", "4", "m5.large", "c7g.large", "amd64", "arm64", "linux",
		"ap-southeast-1a", "m5"}, []string{"windows", "ap-southeast-1z", "-1", "1.5", "abc", ""}},
	"effect":                           {[]string{"NoSchedule", "PreferNoSchedule", "NoExecute"}, []string{"Never", ""}},
	"volume_size":                      {[]string{"20Gi", "100G", "1Ti"}, []string{"0Gi", "64001G", "abc", "20"}},
	"volume_type":                      {[]string{"gp3", "gp2", "io2", "st1"}, []string{"nvme"}},
	"device_name":                      {[]string{"/dev/xvda", "/dev/xvdb"}, []string{""}},
	"duration":                         {[]string{"30s", "720h", "10m", "1h30m"}, []string{"-1s", "abc", ""}},
	"schedule":                         {[]string{"@daily", "0 9 * * mon-fri"}, []string{"* * * *", "bogus"}},
	"nodes":                            {[]string{"10%", "5", "0", "100%"}, []string{"101%", "abc", "-1"}},
	"reasons":                          {[]string{"Empty", "Drifted", "Underutilized"}, []string{"Expired"}},
	"checks":                           {[]string{"off", "warn", "error"}, []string{"strict"}},
	"launcher":                         {[]string{"karpenter", "provider"}, []string{"terraform", ""}},
	"spread":                           {[]string{"zones"}, []string{"none", "zone", ""}},
	"price":                            {[]string{"0.5", "0", "1.25"}, []string{"-1", "1e3", "abc", "$1"}},
	"cni_role":                         {[]string{"node", "arn:aws:iam::111122223333:role/cni"}, []string{""}},
	"context":                          {nil, []string{"arn:aws:outposts:x", "abc", ""}},
	"kms_key_id":                       {[]string{"arn:aws:kms:ap-southeast-1:111122223333:key/1"}, []string{"alias/x", ""}},
	"snapshot_id":                      {[]string{"snap-0123"}, []string{"x"}},
	"user_data":                        {[]string{"#!/bin/bash\necho hi", "[settings]\nx=1"}, []string{"", strings.Repeat("u", 17*1024)}},
	"http_tokens":                      {[]string{"required", "optional"}, []string{"maybe"}},
	"cluster_dns":                      {[]string{"10.100.0.10", "fd00::a"}, []string{"not-an-ip"}},
	"interface_type":                   {[]string{"interface", "efa-only"}, []string{"efa", "eni"}},
	"price_adjustment":                 {[]string{"+10%", "-10%", "-0.1", "+1"}, []string{"-200%", "abc"}},
	"consolidation_policy":             {[]string{"WhenEmpty", "WhenEmptyOrUnderutilized"}, []string{"Always"}},
	"min_values_policy":                {[]string{"Strict", "BestEffort"}, []string{"Loose"}},
	"instance_match_criteria":          {[]string{"open", "targeted"}, []string{"none"}},
	"nested_virtualization":            {[]string{"enabled", "disabled"}, []string{"on"}},
	"max_pods_expression":              {[]string{"min(110, eni_limited_pods)", "eni_limited_pods - 2", "110"}, []string{"max_pods(", ""}},
	"instance_store_policy":            {[]string{"RAID0"}, []string{"RAID1"}},
	"owner_id":                         {[]string{worldAccount}, []string{"x"}},
	"http_endpoint":                    {[]string{"enabled", "disabled"}, []string{"on"}},
	"http_protocol_ipv6":               {[]string{"enabled", "disabled"}, []string{"on"}},
	"quantity":                         {[]string{"1000", "100Gi", "500m", "2", "0"}, []string{"-1", "1e3", "1.5Gi", "abc", "", "10%", "5%"}},
	"control_plane_security_group_ids": {[]string{"sg-0cluster00000000001"}, []string{"sg-0missing", "x"}},
}

// aliases share a vocabulary.
var vocabularyAlias = map[string]string{
	"consolidate_after": "duration", "expire_after": "duration", "termination_grace_period": "duration",
	"create": "duration", "update": "duration", "delete": "duration",
}

// mapKeys are the keys of map attributes by name.
var mapKeys = map[string][]string{
	"tags":     {"team", "Name", "aws:x", "kubernetes.io/cluster/x", "karpenter.sh/nodepool", "eks:eks-cluster-name", ""},
	"limits":   {"cpu", "memory", "nvidia.com/gpu", "pods", "ephemeral-storage", "bogus key"},
	"capacity": {"example.com/device", "hugepages-2Mi", "cpu", "memory", "bad key", "smarter-devices/fuse"},
	"labels": {"team", "karpenter.sh/nodepool", "node.kubernetes.io/instance-type", "kubernetes.io/hostname", "topology.kubernetes.io/zone",
		"example.com/x", "bad key!", ""},
	"annotations":                {"example.com/note", "karpenter.sh/do-not-disrupt", "bad key!"},
	"kube_reserved":              {"cpu", "memory", "ephemeral-storage", "pid", "gpu"},
	"system_reserved":            {"cpu", "memory", "ephemeral-storage", "pid", "gpu"},
	"eviction_hard":              {"memory.available", "nodefs.available", "imagefs.inodesFree", "pid.available", "bogus"},
	"eviction_soft":              {"memory.available", "nodefs.available", "bogus"},
	"eviction_soft_grace_period": {"memory.available", "nodefs.available", "bogus"},
	"resources":                  {"cpu", "memory", "nvidia.com/gpu", "example.com/device"},
	"workloads":                  {"web", "batch", ""},
}

// junk are strings any attribute may get.
var junk = []string{"", " ", "x", "-1", "0", "1e309", "NaN", "${x}", "💥", "a\x00b", strings.Repeat("z", 300), "null", "[]", "{}"}

// numbers by attribute name; others draw from genericNumbers.
var numbers = map[string][]float64{
	"weight":                      {0, 1, 10, 100, 101, -1},
	"replicas":                    {0, 1, 2, 3, -1, 500},
	"max_pods":                    {0, 1, 29, 110, 250, 1000, -5},
	"http_put_response_hop_limit": {1, 2, 64, 65, 0},
	"device_index":                {0, 1, 2, -1},
	"network_card_index":          {0, 1, 31, -1},
	"min_values":                  {1, 2, 50, 51, 0, -1},
	"reserved_enis":               {0, 1, 2, 100, -1},
	"ip_prefix_count":             {0, 1, 2, 16, -1},
}

var genericNumbers = []float64{0, 1, 2, 3, 10, 100, -1, 1.5, 65535, math.MaxInt32 + 1, -math.MaxInt32 - 2, 1e18, 1e30}

// kubeletConfigKeys are KubeletConfiguration fields and near misses, for the dynamic
// kubelet.config.
var kubeletConfigKeys = []string{"maxPods", "podsPerCore", "cpuManagerPolicy", "topologyManagerPolicy", "systemReserved",
	"evictionHard", "clusterDNS", "imageGCHighThresholdPercent", "serializeImagePulls", "bogusField", "max_pods", "featureGates"}

func (g *configGen) pick(xs []string) string { return xs[g.r.IntN(len(xs))] }

func (g *configGen) chance(p float64) bool { return g.r.Float64() < p }

// str is a string for the attribute named name.
func (g *configGen) str(name string) string {
	if a, ok := vocabularyAlias[name]; ok {
		name = a
	}
	w, ok := vocabulary[name]
	if !ok {
		w = vocabulary["quantity"]
	}
	switch {
	case g.clean && len(w.valid) > 0:
		return g.pick(w.valid)
	case g.chance(0.08):
		return g.pick(junk)
	case g.chance(0.04): // another attribute's value
		keys := mapsKeys(vocabulary)
		slices.Sort(keys)
		other := vocabulary[g.pick(keys)]
		return g.pick(append(slices.Clone(other.valid), other.invalid...))
	case g.chance(0.3) && len(w.invalid) > 0:
		return g.pick(w.invalid)
	case len(w.valid) > 0:
		return g.pick(w.valid)
	}
	return g.pick(w.invalid)
}

func mapsKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

func (g *configGen) num(name string) *big.Float {
	if v, ok := numbers[name]; ok && (g.clean || !g.chance(0.1)) {
		if g.clean {
			v = v[:max(1, len(v)-1)] // the last is out of range
		}
		return big.NewFloat(v[g.r.IntN(len(v))])
	}
	if g.clean {
		return big.NewFloat(float64(g.r.IntN(4)))
	}
	return big.NewFloat(genericNumbers[g.r.IntN(len(genericNumbers))])
}

// count is a list or map length: mostly short, now and then long.
func (g *configGen) count() int {
	switch {
	case g.clean:
		return 1 + g.r.IntN(2)
	case g.chance(0.03):
		return 20 + g.r.IntN(40)
	}
	return g.r.IntN(4)
}

// attrs are the attributes of an object from a schema's: everything configurable, computed-only
// ones null.
func (g *configGen) attrs(typ tftypes.Object, schema []*tfprotov6.SchemaAttribute) tftypes.Value {
	vals := make(map[string]tftypes.Value, len(typ.AttributeTypes))
	for name, at := range typ.AttributeTypes {
		vals[name] = tftypes.NewValue(at, nil)
	}
	for _, a := range schema {
		at := typ.AttributeTypes[a.Name]
		switch {
		case a.Computed && !a.Optional && !a.Required:
		case a.Required && (g.clean || !g.chance(0.03)), a.Optional && g.chance(0.35):
			vals[a.Name] = g.attribute(a, at)
		}
	}
	return tftypes.NewValue(typ, vals)
}

// attribute is a value of a schema attribute: a nested one by its nested attributes.
func (g *configGen) attribute(a *tfprotov6.SchemaAttribute, typ tftypes.Type) tftypes.Value {
	if a.NestedType == nil {
		return g.value(a.Name, typ)
	}
	if g.chance(g.unknown) {
		return tftypes.NewValue(typ, tftypes.UnknownValue)
	}
	obj := func(t tftypes.Type) tftypes.Value { return g.attrs(t.(tftypes.Object), a.NestedType.Attributes) }
	switch t := typ.(type) {
	case tftypes.Object:
		return obj(t)
	case tftypes.List:
		elems := make([]tftypes.Value, g.count())
		for i := range elems {
			elems[i] = obj(t.ElementType)
		}
		return tftypes.NewValue(typ, elems)
	case tftypes.Set:
		return g.value(a.Name, typ) // none in the schemas; the type decides
	case tftypes.Map:
		elems := map[string]tftypes.Value{}
		for range g.count() {
			elems[g.key(a.Name)] = obj(t.ElementType)
		}
		return tftypes.NewValue(typ, elems)
	}
	return g.value(a.Name, typ)
}

func (g *configGen) key(name string) string {
	if ks, ok := mapKeys[name]; ok && !g.chance(0.05) {
		if g.clean {
			return ks[0]
		}
		return g.pick(ks)
	}
	return g.pick(append([]string{"a", "b", "example.com/k"}, junk[:4]...))
}

// value is a value of type typ for the attribute named name.
func (g *configGen) value(name string, typ tftypes.Type) tftypes.Value {
	if g.chance(g.unknown) && !typ.Is(tftypes.DynamicPseudoType) {
		return tftypes.NewValue(typ, tftypes.UnknownValue)
	}
	switch t := typ.(type) {
	case tftypes.List:
		elems := make([]tftypes.Value, g.count())
		for i := range elems {
			elems[i] = g.value(name, t.ElementType)
		}
		return tftypes.NewValue(typ, elems)
	case tftypes.Map:
		elems := map[string]tftypes.Value{}
		for range g.count() {
			elems[g.key(name)] = g.value(name, t.ElementType)
		}
		return tftypes.NewValue(typ, elems)
	case tftypes.Object:
		vals := map[string]tftypes.Value{}
		for n, at := range t.AttributeTypes {
			vals[n] = tftypes.NewValue(at, nil)
			if g.chance(0.6) {
				vals[n] = g.value(n, at)
			}
		}
		return tftypes.NewValue(typ, vals)
	}
	switch {
	case typ.Is(tftypes.String):
		return tftypes.NewValue(typ, g.str(name))
	case typ.Is(tftypes.Number):
		return tftypes.NewValue(typ, g.num(name))
	case typ.Is(tftypes.Bool):
		return tftypes.NewValue(typ, g.chance(0.5))
	case typ.Is(tftypes.DynamicPseudoType):
		return g.dynamic()
	}
	return tftypes.NewValue(typ, nil)
}

// dynamic is a kubelet.config: mostly an object of KubeletConfiguration fields, sometimes a
// value of another type.
func (g *configGen) dynamic() tftypes.Value {
	switch g.r.IntN(10) {
	case 0:
		return tftypes.NewValue(tftypes.String, g.pick(junk))
	case 2:
		return tftypes.NewValue(tftypes.Object{AttributeTypes: map[string]tftypes.Type{}}, map[string]tftypes.Value{})
	case 1:
		return tftypes.NewValue(tftypes.List{ElementType: tftypes.Number}, []tftypes.Value{tftypes.NewValue(tftypes.Number, g.num(""))})
	}
	types, vals := map[string]tftypes.Type{}, map[string]tftypes.Value{}
	for range g.count() + 1 {
		k := g.pick(kubeletConfigKeys)
		var v tftypes.Value
		switch g.r.IntN(4) {
		case 0:
			v = tftypes.NewValue(tftypes.Number, g.num("max_pods"))
		case 1:
			v = tftypes.NewValue(tftypes.String, g.str("values"))
		case 2:
			v = tftypes.NewValue(tftypes.Bool, g.chance(0.5))
		default:
			mt := tftypes.Object{AttributeTypes: map[string]tftypes.Type{"cpu": tftypes.String, "memory.available": tftypes.String}}
			v = tftypes.NewValue(mt, map[string]tftypes.Value{"cpu": tftypes.NewValue(tftypes.String, g.str("quantity")),
				"memory.available": tftypes.NewValue(tftypes.String, g.str("quantity"))})
		}
		types[k], vals[k] = v.Type(), v
	}
	return tftypes.NewValue(tftypes.Object{AttributeTypes: types}, vals)
}

// mutate changes a few of v's values, drawing new ones as value does; nested attributes keep
// their shape.
func (g *configGen) mutate(name string, v tftypes.Value, p float64) tftypes.Value {
	if !v.IsKnown() || v.IsNull() {
		if g.chance(p/4) && !v.Type().Is(tftypes.DynamicPseudoType) {
			return g.value(name, v.Type())
		}
		return v
	}
	switch t := v.Type().(type) {
	case tftypes.Object:
		var shared map[string]tftypes.Value
		_ = v.As(&shared)
		attrs := maps.Clone(shared) // As shares the value's own map
		for n, a := range attrs {
			attrs[n] = g.mutate(n, a, p)
		}
		return tftypes.NewValue(t, attrs)
	case tftypes.List:
		var shared []tftypes.Value
		_ = v.As(&shared)
		elems := slices.Clone(shared)
		for i, e := range elems {
			elems[i] = g.mutate(name, e, p)
		}
		if len(elems) > 0 && g.chance(p) {
			elems = elems[:len(elems)-1]
		}
		return tftypes.NewValue(t, elems)
	case tftypes.Map:
		var shared map[string]tftypes.Value
		_ = v.As(&shared)
		elems := maps.Clone(shared)
		for k, e := range elems {
			elems[k] = g.mutate(name, e, p)
		}
		return tftypes.NewValue(t, elems)
	}
	if g.chance(p) {
		return g.value(name, v.Type())
	}
	return v
}
