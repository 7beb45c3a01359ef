package crdcheck

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// The functions below re-implement, in Go, CEL rules (x-kubernetes-validations) of the
// Karpenter v1 CRDs. They follow CEL semantics where it matters: has(x.f) is "the key is
// present", all() over an empty list is true, and a rule that would fail to evaluate (for
// example int() of a non-integer string, or a map lookup on an absent map) rejects the object.
// Every function tolerates ill-typed input, which the JSON Schema check reports separately.

type violations []error

func (v *violations) add(format string, args ...any) {
	*v = append(*v, fmt.Errorf(format, args...))
}

func has(m map[string]any, key string) bool {
	_, ok := m[key]
	return ok
}

func asMap(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

func asString(v any) string {
	s, _ := v.(string)
	return s
}

func asInt(v any) (int64, bool) {
	switch n := v.(type) {
	case json.Number:
		i, err := n.Int64()
		return i, err == nil
	case int:
		return int64(n), true
	case int64:
		return n, true
	case float64:
		return int64(n), float64(int64(n)) == n
	}
	return 0, false
}

func all(list []any, pred func(map[string]any) bool) bool {
	for _, e := range list {
		if !pred(asMap(e)) {
			return false
		}
	}
	return true
}

func exists(list []any, pred func(map[string]any) bool) bool {
	for _, e := range list {
		if pred(asMap(e)) {
			return true
		}
	}
	return false
}

func count(list []any, pred func(map[string]any) bool) int {
	n := 0
	for _, e := range list {
		if pred(asMap(e)) {
			n++
		}
	}
	return n
}

func hasAny(m map[string]any, keys ...string) bool {
	for _, k := range keys {
		if has(m, k) {
			return true
		}
	}
	return false
}

// emptyTags reports whether a selector term's tags map has an empty key or value.
func emptyTags(term map[string]any) bool {
	for k, v := range asMap(term["tags"]) {
		if k == "" || asString(v) == "" {
			return true
		}
	}
	return false
}

// sortedKeys gives deterministic error output.
func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// ---------------------------------------------------------------------------------------------
// EC2NodeClass

var (
	aliasFormat = regexp.MustCompile(`^[a-zA-Z0-9]+@.+$`)
	// aliasFamilies maps an alias family to the amiFamily value it implies.
	aliasFamilies = map[string]string{
		"al2": "AL2", "al2023": "AL2023", "bottlerocket": "Bottlerocket",
		"windows2019": "Windows2019", "windows2022": "Windows2022", "windows2025": "Windows2025",
	}
	reservedKeys = []string{"cpu", "memory", "ephemeral-storage", "pid"}
	evictionKeys = []string{"memory.available", "nodefs.available", "nodefs.inodesFree", "imagefs.available", "imagefs.inodesFree", "pid.available"}
)

func ec2NodeClassRules(spec map[string]any) []error {
	var v violations
	if spec == nil {
		return nil
	}

	// Exactly one of role and instanceProfile; neither may be empty.
	if has(spec, "role") == has(spec, "instanceProfile") {
		v.add("spec: exactly one of role and instanceProfile must be set")
	}
	for _, f := range []string{"role", "instanceProfile"} {
		if has(spec, f) && asString(spec[f]) == "" {
			v.add("spec.%s: must not be empty", f)
		}
	}

	amiRules(&v, spec)
	subnetRules(&v, asList(spec["subnetSelectorTerms"]), has(spec, "subnetSelectorTerms"))
	securityGroupRules(&v, asList(spec["securityGroupSelectorTerms"]), has(spec, "securityGroupSelectorTerms"))
	if has(spec, "capacityReservationSelectorTerms") {
		capacityReservationRules(&v, asList(spec["capacityReservationSelectorTerms"]))
	}
	if pg := asMap(spec["placementGroupSelector"]); pg != nil {
		if !hasAny(pg, "name", "id") {
			v.add("spec.placementGroupSelector: one of name or id is required")
		}
		if has(pg, "name") && has(pg, "id") {
			v.add("spec.placementGroupSelector: name and id cannot both be set")
		}
	}
	if ct := asMap(spec["connectionTracking"]); ct != nil && !hasAny(ct, "tcpEstablishedTimeout", "udpStreamTimeout", "udpTimeout") {
		v.add("spec.connectionTracking: at least one timeout must be set")
	}
	tagRules(&v, asMap(spec["tags"]))
	if k := asMap(spec["kubelet"]); k != nil {
		kubeletRules(&v, k)
	}
	if has(spec, "blockDeviceMappings") {
		blockDeviceRules(&v, asList(spec["blockDeviceMappings"]))
	}
	if has(spec, "networkInterfaces") {
		networkInterfaceRules(&v, asList(spec["networkInterfaces"]))
	}
	return v
}

func amiRules(v *violations, spec map[string]any) {
	terms := asList(spec["amiSelectorTerms"])
	isAlias := func(t map[string]any) bool { return has(t, "alias") }
	if !all(terms, func(t map[string]any) bool { return hasAny(t, "tags", "id", "name", "alias", "ssmParameter") }) {
		v.add("spec.amiSelectorTerms: every term needs one of tags, id, name, alias or ssmParameter")
	}
	if exists(terms, func(t map[string]any) bool { return has(t, "id") && hasAny(t, "alias", "tags", "name", "owner") }) {
		v.add("spec.amiSelectorTerms: a term with id cannot also set alias, tags, name or owner")
	}
	if exists(terms, func(t map[string]any) bool { return isAlias(t) && hasAny(t, "id", "tags", "name", "owner") }) {
		v.add("spec.amiSelectorTerms: a term with alias cannot also set id, tags, name or owner")
	}
	if exists(terms, isAlias) && len(terms) != 1 {
		v.add("spec.amiSelectorTerms: an alias term must be the only term")
	}
	for i, t := range terms {
		tm := asMap(t)
		if emptyTags(tm) {
			v.add("spec.amiSelectorTerms[%d].tags: keys and values must not be empty", i)
		}
		if !isAlias(tm) {
			continue
		}
		alias := asString(tm["alias"])
		family, version, _ := strings.Cut(alias, "@")
		switch {
		case !aliasFormat.MatchString(alias):
			v.add("spec.amiSelectorTerms[%d].alias: %q is not of the form family@version", i, alias)
		case aliasFamilies[family] == "":
			v.add("spec.amiSelectorTerms[%d].alias: unsupported family %q", i, family)
		case strings.HasPrefix(family, "windows") && version != "latest":
			v.add("spec.amiSelectorTerms[%d].alias: windows families only accept version latest", i)
		}
	}

	// amiFamily is required without an alias term; with one it must match the alias or be Custom.
	if !exists(terms, isAlias) && !has(spec, "amiFamily") {
		v.add("spec.amiFamily: required when amiSelectorTerms has no alias term")
	}
	if has(spec, "amiFamily") {
		fam := asString(spec["amiFamily"])
		for _, t := range terms {
			tm := asMap(t)
			if !isAlias(tm) {
				continue
			}
			prefix, _, _ := strings.Cut(asString(tm["alias"]), "@")
			if want, ok := aliasFamilies[prefix]; ok && fam != want && fam != "Custom" {
				v.add("spec.amiFamily: %q conflicts with alias family %q (must be %s or Custom)", fam, prefix, want)
			}
		}
	}
}

func subnetRules(v *violations, terms []any, present bool) {
	if !present {
		return // the schema reports the missing required field
	}
	if len(terms) == 0 {
		v.add("spec.subnetSelectorTerms: must not be empty")
	}
	if !all(terms, func(t map[string]any) bool { return hasAny(t, "tags", "id") }) {
		v.add("spec.subnetSelectorTerms: every term needs tags or id")
	}
	// The CRD's rule is !all(...): it rejects only when every term mixes id with tags.
	if all(terms, func(t map[string]any) bool { return has(t, "id") && has(t, "tags") }) {
		v.add("spec.subnetSelectorTerms: id cannot be combined with tags in a term")
	}
	for i, t := range terms {
		if emptyTags(asMap(t)) {
			v.add("spec.subnetSelectorTerms[%d].tags: keys and values must not be empty", i)
		}
	}
}

func securityGroupRules(v *violations, terms []any, present bool) {
	if !present {
		return
	}
	if len(terms) == 0 {
		v.add("spec.securityGroupSelectorTerms: must not be empty")
	}
	if !all(terms, func(t map[string]any) bool { return hasAny(t, "tags", "id", "name") }) {
		v.add("spec.securityGroupSelectorTerms: every term needs tags, id or name")
	}
	// As for subnets, the CRD rejects only when every term mixes the fields.
	if all(terms, func(t map[string]any) bool { return has(t, "id") && hasAny(t, "tags", "name") }) {
		v.add("spec.securityGroupSelectorTerms: id cannot be combined with tags or name in a term")
	}
	if all(terms, func(t map[string]any) bool { return has(t, "name") && hasAny(t, "tags", "id") }) {
		v.add("spec.securityGroupSelectorTerms: name cannot be combined with tags or id in a term")
	}
	for i, t := range terms {
		if emptyTags(asMap(t)) {
			v.add("spec.securityGroupSelectorTerms[%d].tags: keys and values must not be empty", i)
		}
	}
}

func capacityReservationRules(v *violations, terms []any) {
	if !all(terms, func(t map[string]any) bool { return hasAny(t, "tags", "id", "instanceMatchCriteria") }) {
		v.add("spec.capacityReservationSelectorTerms: every term needs tags, id or instanceMatchCriteria")
	}
	// !all(...) also rejects an empty list.
	if all(terms, func(t map[string]any) bool {
		return has(t, "id") && hasAny(t, "tags", "ownerID", "instanceMatchCriteria")
	}) {
		v.add("spec.capacityReservationSelectorTerms: id cannot be combined with tags, ownerID or instanceMatchCriteria (an empty list is rejected too)")
	}
	for i, t := range terms {
		if emptyTags(asMap(t)) {
			v.add("spec.capacityReservationSelectorTerms[%d].tags: keys and values must not be empty", i)
		}
	}
}

func tagRules(v *violations, tags map[string]any) {
	for _, k := range sortedKeys(tags) {
		switch {
		case k == "":
			v.add("spec.tags: keys must not be empty")
		case k == "eks:eks-cluster-name", strings.HasPrefix(k, "kubernetes.io/cluster"),
			k == "karpenter.sh/nodepool", k == "karpenter.sh/nodeclaim", k == "karpenter.k8s.aws/ec2nodeclass":
			v.add("spec.tags: key %q is reserved", k)
		}
	}
}

func kubeletRules(v *violations, k map[string]any) {
	for _, f := range []string{"systemReserved", "kubeReserved"} {
		m := asMap(k[f])
		for _, key := range sortedKeys(m) {
			if !slices.Contains(reservedKeys, key) {
				v.add("spec.kubelet.%s: key %q is not one of %v", f, key, reservedKeys)
			}
			if strings.HasPrefix(asString(m[key]), "-") {
				v.add("spec.kubelet.%s[%q]: must not be negative", f, key)
			}
		}
	}
	for _, f := range []string{"evictionHard", "evictionSoft", "evictionSoftGracePeriod"} {
		for _, key := range sortedKeys(asMap(k[f])) {
			if !slices.Contains(evictionKeys, key) {
				v.add("spec.kubelet.%s: key %q is not one of %v", f, key, evictionKeys)
			}
		}
	}
	hi, hiOK := asInt(k["imageGCHighThresholdPercent"])
	lo, loOK := asInt(k["imageGCLowThresholdPercent"])
	if hiOK && loOK && hi <= lo {
		v.add("spec.kubelet: imageGCHighThresholdPercent (%d) must be greater than imageGCLowThresholdPercent (%d)", hi, lo)
	}
	soft, grace := asMap(k["evictionSoft"]), asMap(k["evictionSoftGracePeriod"])
	if has(k, "evictionSoft") {
		for _, key := range sortedKeys(soft) {
			if !has(grace, key) {
				v.add("spec.kubelet.evictionSoft[%q]: needs a matching evictionSoftGracePeriod", key)
			}
		}
	}
	if has(k, "evictionSoftGracePeriod") {
		for _, key := range sortedKeys(grace) {
			if !has(soft, key) {
				v.add("spec.kubelet.evictionSoftGracePeriod[%q]: needs a matching evictionSoft", key)
			}
		}
	}
}

func blockDeviceRules(v *violations, bdms []any) {
	roots := count(bdms, func(b map[string]any) bool { return b["rootVolume"] == true })
	if roots > 1 {
		v.add("spec.blockDeviceMappings: at most one mapping may set rootVolume (got %d)", roots)
	}
	for i, b := range bdms {
		ebs := asMap(asMap(b)["ebs"])
		if ebs == nil {
			continue
		}
		if !hasAny(ebs, "snapshotID", "volumeSize") {
			v.add("spec.blockDeviceMappings[%d].ebs: snapshotID or volumeSize is required", i)
		}
		if has(ebs, "volumeInitializationRate") && asString(ebs["snapshotID"]) == "" {
			v.add("spec.blockDeviceMappings[%d].ebs: volumeInitializationRate needs a non-empty snapshotID", i)
		}
	}
}

func networkInterfaceRules(v *violations, nis []any) {
	type pair struct{ card, dev int64 }
	field := func(n map[string]any, f string) int64 { i, _ := asInt(n[f]); return i }
	if len(nis) > 0 && !exists(nis, func(n map[string]any) bool {
		return field(n, "networkCardIndex") == 0 && field(n, "deviceIndex") == 0 && n["interfaceType"] == "interface"
	}) {
		v.add("spec.networkInterfaces: needs a primary entry (networkCardIndex 0, deviceIndex 0, interfaceType interface)")
	}
	seen := map[pair]int{}
	efa := map[int64]int{}
	for _, e := range nis {
		n := asMap(e)
		seen[pair{field(n, "networkCardIndex"), field(n, "deviceIndex")}]++
		if n["interfaceType"] == "efa-only" {
			efa[field(n, "networkCardIndex")]++
		}
	}
	for i, e := range nis {
		n := asMap(e)
		p := pair{field(n, "networkCardIndex"), field(n, "deviceIndex")}
		if seen[p] > 1 {
			v.add("spec.networkInterfaces[%d]: networkCardIndex %d / deviceIndex %d is used more than once", i, p.card, p.dev)
		}
		if n["interfaceType"] == "efa-only" && efa[p.card] > 1 {
			v.add("spec.networkInterfaces[%d]: network card %d has more than one efa-only interface", i, p.card)
		}
	}
}

// ---------------------------------------------------------------------------------------------
// NodePool

func (c *crd) nodePoolRules(spec map[string]any) []error {
	var v violations
	if spec == nil {
		return nil
	}
	tmpl := asMap(spec["template"])
	labels := asMap(asMap(tmpl["metadata"])["labels"])
	for _, k := range sortedKeys(labels) {
		if msg := c.restrictedLabel(k); msg != "" {
			v.add("spec.template.metadata.labels: %s", msg)
		}
	}
	tspec := asMap(tmpl["spec"])
	if ref := asMap(tspec["nodeClassRef"]); ref != nil {
		for _, f := range []string{"group", "kind", "name"} {
			if has(ref, f) && asString(ref[f]) == "" {
				v.add("spec.template.spec.nodeClassRef.%s: must not be empty", f)
			}
		}
	}
	for i, r := range asList(tspec["requirements"]) {
		c.requirementRules(&v, i, asMap(r))
	}

	if budgets := asList(asMap(spec["disruption"])["budgets"]); budgets != nil {
		for i, b := range budgets {
			bm := asMap(b)
			if has(bm, "schedule") != has(bm, "duration") {
				v.add("spec.disruption.budgets[%d]: schedule and duration must be set together", i)
			}
		}
	}

	if has(spec, "replicas") {
		limits := asMap(spec["limits"])
		if len(limits) > 1 || (len(limits) == 1 && !has(limits, "nodes")) {
			v.add("spec.limits: with replicas set only limits.nodes is allowed (got %v)", sortedKeys(limits))
		}
		if has(spec, "weight") {
			v.add("spec.weight: not allowed when replicas is set")
		}
	}
	return v
}

func (c *crd) requirementRules(v *violations, i int, r map[string]any) {
	if msg := c.restrictedLabel(asString(r["key"])); msg != "" {
		v.add("spec.template.spec.requirements[%d].key: %s", i, msg)
	}
	op := asString(r["operator"])
	values := asList(r["values"])
	switch op {
	case "In":
		if len(values) == 0 {
			v.add("spec.template.spec.requirements[%d]: operator In needs at least one value", i)
		}
		if has(r, "minValues") {
			if mv, ok := asInt(r["minValues"]); !ok || int64(len(values)) < mv {
				v.add("spec.template.spec.requirements[%d]: minValues %v exceeds the %d values given", i, r["minValues"], len(values))
			}
		}
	case "Gt", "Lt", "Gte", "Lte":
		if len(values) != 1 {
			v.add("spec.template.spec.requirements[%d]: operator %s needs exactly one value (got %d)", i, op, len(values))
			break
		}
		// CEL int() of a string parses a base-10 int64 and fails otherwise.
		if n, err := strconv.ParseInt(asString(values[0]), 10, 64); err != nil || n < 0 {
			v.add("spec.template.spec.requirements[%d]: operator %s needs a non-negative integer value (got %q)", i, op, asString(values[0]))
		}
	}
}

// restrictedLabel returns why a label key may not be used in a NodePool, or "".
func (c *crd) restrictedLabel(key string) string {
	domain, _, _ := strings.Cut(key, "/")
	switch {
	case key == "karpenter.sh/nodepool":
		return fmt.Sprintf("label %q is set by Karpenter", key)
	case key == "kubernetes.io/hostname":
		return fmt.Sprintf("label %q is restricted", key)
	case strings.HasSuffix(domain, "karpenter.sh") && key != "karpenter.sh/capacity-type":
		return fmt.Sprintf("label %q is in the restricted karpenter.sh domain", key)
	case strings.HasSuffix(domain, "karpenter.k8s.aws") && !c.allowedAWSLabels[key]:
		return fmt.Sprintf("label %q is in the restricted karpenter.k8s.aws domain", key)
	}
	return ""
}
