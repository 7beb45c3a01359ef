package launchplan

import (
	"fmt"
	"io"
	"maps"
	"mime"
	"mime/multipart"
	"net/mail"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/nodeplane/terraform-provider-karpenter/internal/capacity"
	"github.com/nodeplane/terraform-provider-karpenter/internal/requirements"
)

// mimeBoundary is the fixed multipart boundary of the generated user data, as Karpenter uses.
const mimeBoundary = "//"

// MIME content types of user-data parts.
const (
	contentTypeShell      = `text/x-shellscript; charset="us-ascii"`
	contentTypeCloudInit  = "text/cloud-config"
	contentTypeNodeConfig = "application/node.eks.aws"
)

// userData renders the launch-template user data for one max-pods value: the AMI family's
// bootstrap configuration (max pods, the node pool label, cluster DNS, reserved resources,
// hard eviction thresholds) merged with the class's user data. Map-valued settings are written
// in sorted key order, so the output is deterministic.
func (b *builder) userData(maxPods int, k Kubelet) string {
	user := b.in.Class.UserData
	if b.in.ClusterName == "" && b.family != capacity.FamilyCustom {
		b.warn(SummaryNoClusterName, pathPool, "the provider has no cluster name, so the %s user data cannot name the cluster and nodes will not join; "+
			"set the provider's cluster_name", b.family)
	}
	switch {
	case b.family == capacity.FamilyAL2:
		parts := b.userParts(user)
		return renderMIME(append(parts, mimePart{contentType: contentTypeShell, body: b.al2Script(maxPods, k)}))
	case b.family == capacity.FamilyBottlerocket:
		return b.bottlerocket(user, maxPods, k)
	case capacity.IsWindows(b.family):
		return b.windows(user, maxPods, k)
	case b.family == capacity.FamilyCustom:
		if strings.TrimSpace(user) == "" {
			b.warn(SummaryCustomMaxPods, pathPool, "Custom AMI family: the kubelet will not be told max pods; node class %q has no user data, "+
				"so the AMI must bootstrap itself with max pods %d", b.in.Class.Name, maxPods)
		}
		return user
	default: // AL2023
		parts := b.userParts(user)
		return renderMIME(append(parts, mimePart{contentType: contentTypeNodeConfig, body: b.nodeConfig(maxPods, k)}))
	}
}

// kubeletArgs are the kubelet flags AL2 and Windows pass: --max-pods and the reserved and
// eviction settings, each map as sorted key=value pairs.
func (b *builder) kubeletArgs(maxPods int, k Kubelet) []string {
	args := []string{"--max-pods=" + strconv.Itoa(maxPods)}
	if s := joinSorted(k.KubeReserved, "="); s != "" {
		args = append(args, "--kube-reserved="+s)
	}
	if s := joinSorted(k.SystemReserved, "="); s != "" {
		args = append(args, "--system-reserved="+s)
	}
	if s := joinSorted(k.EvictionHard, "<"); s != "" {
		args = append(args, "--eviction-hard="+s)
	}
	return args
}

func (b *builder) nodeLabel() string {
	return requirements.LabelNodePool + "=" + b.in.PoolName
}

// al2Script is the bootstrap.sh call: --use-max-pods false so that the script's table does not
// override the --max-pods flag.
func (b *builder) al2Script(maxPods int, k Kubelet) string {
	var sb strings.Builder
	sb.WriteString("#!/bin/bash -xe\n")
	sb.WriteString("exec > >(tee /var/log/user-data.log|logger -t user-data -s 2>/dev/console) 2>&1\n")
	sb.WriteString("/etc/eks/bootstrap.sh " + shellQuote(b.in.ClusterName) + " --use-max-pods false")
	f := b.in.Bootstrap
	for _, flag := range [][2]string{{"--apiserver-endpoint", f.Endpoint}, {"--b64-cluster-ca", f.CABundle}, {"--service-ipv4-cidr", f.ServiceCIDR}} {
		if flag[1] != "" {
			sb.WriteString(" " + flag[0] + " " + shellQuote(flag[1]))
		}
	}
	if dns := k.ClusterDNS; len(dns) > 0 {
		sb.WriteString(" --dns-cluster-ip " + shellQuote(dns[0]))
	}
	args := append([]string{"--node-labels=" + b.nodeLabel()}, b.kubeletArgs(maxPods, k)...)
	sb.WriteString(" --kubelet-extra-args " + shellQuote(strings.Join(args, " ")) + "\n")
	return sb.String()
}

// nodeConfig is the nodeadm NodeConfig of AL2023.
func (b *builder) nodeConfig(maxPods int, k Kubelet) string {
	var sb strings.Builder
	sb.WriteString("apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n")
	if f := b.in.Bootstrap; b.in.ClusterName != "" || f != (Bootstrap{}) {
		sb.WriteString("  cluster:\n")
		for _, kv := range [][2]string{{"name", b.in.ClusterName}, {"apiServerEndpoint", f.Endpoint}, {"certificateAuthority", f.CABundle}, {"cidr", f.ServiceCIDR}} {
			if kv[1] != "" {
				sb.WriteString("    " + kv[0] + ": " + dquote(kv[1]) + "\n")
			}
		}
	}
	sb.WriteString("  kubelet:\n    config:\n")
	sb.WriteString("      maxPods: " + strconv.Itoa(maxPods) + "\n")
	if len(k.ClusterDNS) > 0 {
		sb.WriteString("      clusterDNS:\n")
		for _, ip := range k.ClusterDNS {
			sb.WriteString("      - " + dquote(ip) + "\n")
		}
	}
	yamlMap(&sb, "evictionHard", k.EvictionHard)
	yamlMap(&sb, "kubeReserved", k.KubeReserved)
	yamlMap(&sb, "systemReserved", k.SystemReserved)
	sb.WriteString("    flags:\n    - " + dquote("--node-labels="+b.nodeLabel()) + "\n")
	return sb.String()
}

func yamlMap(sb *strings.Builder, name string, m map[string]string) {
	if len(m) == 0 {
		return
	}
	sb.WriteString("      " + name + ":\n")
	for _, key := range slices.Sorted(maps.Keys(m)) {
		sb.WriteString("        " + dquote(key) + ": " + dquote(m[key]) + "\n")
	}
}

// windows wraps the class's PowerShell (without its <powershell> tags) and the EKS bootstrap
// call in one <powershell> block.
func (b *builder) windows(user string, maxPods int, k Kubelet) string {
	inner := strings.TrimSpace(user)
	inner = strings.TrimPrefix(inner, "<powershell>")
	inner = strings.TrimSuffix(inner, "</powershell>")
	inner = strings.TrimSpace(inner)
	var sb strings.Builder
	sb.WriteString("<powershell>\n")
	if inner != "" {
		sb.WriteString(inner + "\n")
	}
	sb.WriteString(`[string]$EKSBootstrapScriptFile = "$env:ProgramFiles\Amazon\EKS\Start-EKSBootstrap.ps1"` + "\n")
	sb.WriteString("& $EKSBootstrapScriptFile -EKSClusterName " + psQuote(b.in.ClusterName))
	f := b.in.Bootstrap
	for _, p := range [][2]string{{"-APIServerEndpoint", f.Endpoint}, {"-Base64ClusterCA", f.CABundle}, {"-ServiceCIDR", f.ServiceCIDR}} {
		if p[1] != "" {
			sb.WriteString(" " + p[0] + " " + psQuote(p[1]))
		}
	}
	if dns := k.ClusterDNS; len(dns) > 0 {
		sb.WriteString(" -DNSClusterIP " + psQuote(dns[0]))
	}
	args := append(b.kubeletArgs(maxPods, k), "--node-labels="+b.nodeLabel())
	sb.WriteString(" -KubeletExtraArgs " + psQuote(strings.Join(args, " ")) + "\n")
	sb.WriteString("</powershell>\n")
	return sb.String()
}

// tomlTable is one provider table of the Bottlerocket settings.
type tomlTable struct {
	header string // normalized dotted name, e.g. settings.kubernetes
	keys   []string
	values []string // TOML-encoded
}

// bottlerocket is the user's TOML followed by the provider's settings. A simple line-based
// merge: when the user's TOML already has one of the provider's tables (by its [header],
// quoted or not), the provider's keys go at the end of that section instead of a second header,
// and the user's lines for the same keys are dropped (with a warning) as TOML forbids
// duplicates. Dotted keys that reach the same settings from another table, and multi-line
// values that look like headers, are not understood.
func (b *builder) bottlerocket(user string, maxPods int, k Kubelet) string {
	kube := tomlTable{header: "settings.kubernetes"}
	if b.in.ClusterName != "" {
		kube.add("cluster-name", dquote(b.in.ClusterName))
	}
	if f := b.in.Bootstrap; f.Endpoint != "" {
		kube.add("api-server", dquote(f.Endpoint))
	}
	if f := b.in.Bootstrap; f.CABundle != "" {
		kube.add("cluster-certificate", dquote(f.CABundle))
	}
	kube.add("max-pods", strconv.Itoa(maxPods))
	if len(k.ClusterDNS) > 0 {
		kube.add("cluster-dns-ip", dquote(k.ClusterDNS[0]))
	}
	tables := []tomlTable{kube}
	for _, t := range []struct {
		name string
		m    map[string]string
	}{{"kube-reserved", k.KubeReserved}, {"system-reserved", k.SystemReserved}, {"eviction-hard", k.EvictionHard}} {
		if len(t.m) == 0 {
			continue
		}
		tt := tomlTable{header: "settings.kubernetes." + t.name}
		for _, key := range slices.Sorted(maps.Keys(t.m)) {
			tt.add(key, dquote(t.m[key]))
		}
		tables = append(tables, tt)
	}
	labels := tomlTable{header: "settings.kubernetes.node-labels"}
	labels.add(requirements.LabelNodePool, dquote(b.in.PoolName))
	tables = append(tables, labels)

	lines := splitLines(user)
	var appended []string
	for _, t := range tables {
		start, end := findTOMLSection(lines, t.header)
		if start < 0 {
			if len(appended) > 0 || len(lines) > 0 {
				appended = append(appended, "")
			}
			appended = append(appended, "["+t.header+"]")
			appended = append(appended, t.lines()...)
			continue
		}
		section := make([]string, 0, end-start+len(t.keys))
		for _, l := range lines[start+1 : end] {
			if key, ok := tomlKey(l); ok && slices.Contains(t.keys, key) {
				b.warn(SummaryUserDataReplaced, pathPool, "node class %q's user data sets %s.%s; the provider's value replaces it", b.in.Class.Name, t.header, key)
				continue
			}
			section = append(section, l)
		}
		last := len(section) // insert after the section's last non-blank line
		for last > 0 && strings.TrimSpace(section[last-1]) == "" {
			last--
		}
		section = slices.Insert(section, last, t.lines()...)
		lines = slices.Concat(lines[:start+1], section, lines[end:])
	}
	out := slices.Concat(lines, appended)
	return strings.Join(out, "\n") + "\n"
}

func (t *tomlTable) add(key, value string) {
	t.keys = append(t.keys, key)
	t.values = append(t.values, value)
}

func (t *tomlTable) lines() []string {
	out := make([]string, len(t.keys))
	for i, k := range t.keys {
		out[i] = tomlKeyString(k) + " = " + t.values[i]
	}
	return out
}

var (
	tomlHeaderRE = regexp.MustCompile(`^\s*\[\s*([^\[\]]+?)\s*\]\s*(#.*)?$`)
	tomlBareKey  = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)
)

// findTOMLSection returns the line of the [header] table and the line where its section ends,
// or -1, -1.
func findTOMLSection(lines []string, header string) (start, end int) {
	start = -1
	for i, l := range lines {
		if !strings.HasPrefix(strings.TrimSpace(l), "[") {
			continue
		}
		if start >= 0 {
			return start, i // any table or array-of-tables header ends the section
		}
		if m := tomlHeaderRE.FindStringSubmatch(l); m != nil && normalizeTOMLKey(m[1]) == header {
			start = i
		}
	}
	if start < 0 {
		return -1, -1
	}
	return start, len(lines)
}

// tomlKey is the key of a key = value line, unquoted and with dotted parts rejoined.
func tomlKey(line string) (string, bool) {
	t := strings.TrimSpace(line)
	if t == "" || strings.HasPrefix(t, "#") {
		return "", false
	}
	key, _, ok := strings.Cut(t, "=")
	if !ok {
		return "", false
	}
	return normalizeTOMLKey(key), true
}

// normalizeTOMLKey turns `settings . "kubernetes"` into settings.kubernetes. Dots inside quoted
// parts are kept.
func normalizeTOMLKey(k string) string {
	var parts []string
	var cur strings.Builder
	quote := byte(0)
	for i := 0; i < len(k); i++ {
		c := k[i]
		switch {
		case quote != 0 && c == quote:
			quote = 0
		case quote != 0:
			cur.WriteByte(c)
		case c == '"' || c == '\'':
			quote = c
		case c == '.':
			parts = append(parts, strings.TrimSpace(cur.String()))
			cur.Reset()
		default:
			cur.WriteByte(c)
		}
	}
	parts = append(parts, strings.TrimSpace(cur.String()))
	return strings.Join(parts, ".")
}

func tomlKeyString(k string) string {
	if tomlBareKey.MatchString(k) {
		return k
	}
	return dquote(k)
}

// mimePart is one part of a MIME multipart user data.
type mimePart struct {
	contentType string
	encoding    string // Content-Transfer-Encoding, "" when none
	body        string
}

// userParts turns the class's user data into MIME parts: the parts of a MIME multipart document,
// or the whole text as one part typed by its first line (a NodeConfig, a cloud-config, or a
// shell script).
func (b *builder) userParts(user string) []mimePart {
	if strings.TrimSpace(user) == "" {
		return nil
	}
	parts, isMIME, err := parseMIME(user)
	if isMIME && err == nil {
		return parts
	}
	if isMIME {
		b.warn(SummaryUserDataMIME, pathPool, "node class %q's user data looks like a MIME multipart document but could not be read (%v); it is kept as one part",
			b.in.Class.Name, err)
	}
	trimmed := strings.TrimSpace(user)
	ct := contentTypeShell
	switch {
	case strings.HasPrefix(trimmed, "#cloud-config"):
		ct = contentTypeCloudInit
	case strings.Contains(user, "node.eks.aws/") && strings.Contains(user, "NodeConfig"):
		ct = contentTypeNodeConfig
	}
	return []mimePart{{contentType: ct, body: user}}
}

// parseMIME reads a MIME multipart document; isMIME is false when user is not one.
func parseMIME(user string) (parts []mimePart, isMIME bool, err error) {
	msg, readErr := mail.ReadMessage(strings.NewReader(user))
	if readErr != nil {
		return nil, false, nil //nolint:nilerr // not a MIME document: plain user data, not an error
	}
	mt, params, typeErr := mime.ParseMediaType(msg.Header.Get("Content-Type"))
	if typeErr != nil || !strings.HasPrefix(mt, "multipart/") {
		return nil, false, nil //nolint:nilerr // not multipart: plain user data
	}
	if params["boundary"] == "" {
		return nil, true, fmt.Errorf("no multipart boundary")
	}
	r := multipart.NewReader(msg.Body, params["boundary"])
	for {
		p, err := r.NextRawPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, true, err
		}
		body, err := io.ReadAll(p)
		if err != nil {
			return nil, true, err
		}
		ct := p.Header.Get("Content-Type")
		if ct == "" {
			ct = "text/plain"
		}
		parts = append(parts, mimePart{contentType: ct, encoding: p.Header.Get("Content-Transfer-Encoding"), body: string(body)})
	}
	if len(parts) == 0 {
		return nil, true, fmt.Errorf("no parts")
	}
	return parts, true, nil
}

// renderMIME writes parts as a multipart/mixed document with the fixed boundary.
func renderMIME(parts []mimePart) string {
	var sb strings.Builder
	sb.WriteString("MIME-Version: 1.0\n")
	sb.WriteString(`Content-Type: multipart/mixed; boundary="` + mimeBoundary + "\"\n\n")
	for _, p := range parts {
		sb.WriteString("--" + mimeBoundary + "\n")
		sb.WriteString("Content-Type: " + p.contentType + "\n")
		if p.encoding != "" {
			sb.WriteString("Content-Transfer-Encoding: " + p.encoding + "\n")
		}
		sb.WriteString("\n")
		sb.WriteString(p.body)
		if !strings.HasSuffix(p.body, "\n") {
			sb.WriteString("\n")
		}
	}
	sb.WriteString("--" + mimeBoundary + "--\n")
	return sb.String()
}

// joinSorted joins a map as k<sep>v pairs in key order, comma separated.
func joinSorted(m map[string]string, sep string) string {
	keys := slices.Sorted(maps.Keys(m))
	pairs := make([]string, len(keys))
	for i, k := range keys {
		pairs[i] = k + sep + m[k]
	}
	return strings.Join(pairs, ",")
}

func splitLines(s string) []string {
	s = strings.TrimRight(strings.ReplaceAll(s, "\r\n", "\n"), "\n")
	if strings.TrimSpace(s) == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// shellQuote single-quotes s for a POSIX shell.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'"'"'`) + "'"
}

// psQuote single-quotes s for PowerShell.
func psQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

// dquote is a double-quoted string valid in both YAML and TOML: backslash, quote and control
// characters escaped.
func dquote(s string) string {
	var sb strings.Builder
	sb.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			sb.WriteByte('\\')
			sb.WriteRune(r)
		case r == '\n':
			sb.WriteString(`\n`)
		case r == '\t':
			sb.WriteString(`\t`)
		case r == '\r':
			sb.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&sb, `\u%04X`, r)
		default:
			sb.WriteRune(r)
		}
	}
	sb.WriteByte('"')
	return sb.String()
}
