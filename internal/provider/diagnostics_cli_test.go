package provider

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/acctest"
)

// cliDiagnostic is one diagnostic of `terraform plan -json`, with the source range the CLI
// shows (byte offsets into the file).
type cliDiagnostic struct {
	Severity string `json:"severity"`
	Summary  string `json:"summary"`
	Detail   string `json:"detail"`
	Range    *struct {
		Filename string `json:"filename"`
		Start    struct {
			Byte int `json:"byte"`
			Line int `json:"line"`
		} `json:"start"`
		End struct {
			Byte int `json:"byte"`
		} `json:"end"`
	} `json:"range"`
}

// planDiagnostics runs terraform plan -json on config and returns its error diagnostics.
func planDiagnostics(t *testing.T, rc, config string) []cliDiagnostic {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	out, _ := terraformCLI(t, dir, rc, "plan", "-json", "-input=false", "-lock=false")
	var diags []cliDiagnostic
	for _, line := range strings.Split(out, "\n") {
		var msg struct {
			Type       string         `json:"type"`
			Diagnostic *cliDiagnostic `json:"diagnostic"`
		}
		if json.Unmarshal([]byte(line), &msg) == nil && msg.Type == "diagnostic" && msg.Diagnostic.Severity == "error" {
			diags = append(diags, *msg.Diagnostic)
		}
	}
	if len(diags) == 0 {
		t.Fatalf("the plan reported no error:\n%s", out)
	}
	return diags
}

// What a person sees is the CLI's source range: every refusal of a nested attribute must point
// inside the attribute at fault (Terraform resolves a path to a top-level attribute and one
// index or key on it; the provider attaches that prefix and names the full path in the detail),
// never at the resource's header.
func TestAccCLIDiagnosticRanges(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	cluster := acctest.RandomName("cluster")
	discoveryNetwork(t, cluster)
	rc := cliConfig(t)
	class := func(body string) string {
		return fmt.Sprintf("resource \"karpenter_node_class\" \"test\" {\n  name = \"default\"\n  role = \"KarpenterNodeRole\"\n"+
			"  ami_selector_terms = [{ alias = \"al2023@latest\" }]\n%s\n}\n", body)
	}
	pool := func(template string) string {
		return class("") + fmt.Sprintf(`
resource "karpenter_node_pool" "test" {
  name       = "general"
  node_class = karpenter_node_class.test.resolved
  template = {
    requirements = [{ key = "node.kubernetes.io/instance-type", operator = "In", values = ["m5.large"] }]
%s
  }
}
`, template)
	}
	for _, tc := range []struct {
		name, config string
		within       string // the text the range must lie in (first occurrence in the file)
		path         string // the full path the detail must name
	}{
		{"a nested attribute's framework validator", pool(`    taints = [{ key = "gpu", effect = "Sometimes" }]`),
			"template = {", "template.taints[0].effect"},
		{"a CRD rule below a nested attribute", pool(`    taints = [{ key = "Test.com/test", effect = "NoSchedule" }]`),
			"template = {", "template.taints[0].key"},
		{"an element of a list", class(`  subnet_selector_terms = [{ tags = { a = "b" } }, { id = "subnet_0abc" }]`),
			`{ id = "subnet_0abc" }`, "subnet_selector_terms[1].id"},
		{"an element's attribute named like the resource's", class(`  security_group_selector_terms = [{ id = "sg-0abc", name = "nodes" }]`),
			`{ id = "sg-0abc", name = "nodes" }`, "security_group_selector_terms[0].id"},
		{"a map key", class(`  tags = { "aws:owner" = "x" }`), `"aws:owner" = "x"`, `tags["aws:owner"]`},
		{"an attribute of a nested object", class(`  metadata_options = { http_endpoint = "enabled", http_protocol_ipv6 = "disabled", http_put_response_hop_limit = 65, http_tokens = "required" }`),
			"metadata_options = {", "metadata_options.http_put_response_hop_limit"},
		{"a data source's selector term", "data \"karpenter_subnets\" \"x\" {\n  selector_terms = [{ tags = {} }]\n}\n",
			"{ tags = {} }", "selector_terms[0].tags"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			config := requiredProviders +
				providerConfig(cluster) + tc.config
			start := strings.Index(config, tc.within)
			if start < 0 {
				t.Fatalf("%q not in the config", tc.within)
			}
			end := start + len(tc.within)
			if strings.HasSuffix(tc.within, "{") { // the whole attribute: to its closing brace
				end = start + matchingBracket(config[start:]) + 1
			}
			for _, d := range planDiagnostics(t, rc, config) {
				if d.Range == nil {
					t.Errorf("%q has no source range", d.Summary)
					continue
				}
				if d.Range.Start.Byte < start || d.Range.End.Byte > end {
					t.Errorf("%q points at bytes %d-%d (line %d: %q), want inside %d-%d (%q)", d.Summary, d.Range.Start.Byte, d.Range.End.Byte,
						d.Range.Start.Line, lineAt(config, d.Range.Start.Byte), start, end, tc.within)
				}
				if !strings.Contains(d.Detail, tc.path) {
					t.Errorf("%q: the detail does not name %s: %q", d.Summary, tc.path, d.Detail)
				}
			}
		})
	}
}

func lineAt(s string, offset int) string {
	if offset > len(s) {
		return ""
	}
	from := strings.LastIndex(s[:offset], "\n") + 1
	to := strings.Index(s[offset:], "\n")
	if to < 0 {
		return s[from:]
	}
	return s[from : offset+to]
}

// Karpenter's translated admission suites, planned by the terraform CLI: every refusal's source
// range lies inside the top-level attribute of the path at fault (measured before the provider
// made its paths resolvable: 150 of 177 pointed at the resource's header).
func TestAccCLIDiagnosticRangesSuites(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	cluster := acctest.RandomName("cluster")
	discoveryNetwork(t, cluster)
	rc := cliConfig(t)
	head := requiredProviders + providerConfig(cluster)
	cases := slices.Concat(nodePoolSuiteInvalid(), nodeClassSuiteInvalid(), nodeClassSuiteInvalidNew(), kubeletSuiteInvalid())
	var inside, absent, outside, diags atomic.Int64
	sem := make(chan struct{}, 4)
	var wg sync.WaitGroup
	for i, c := range cases {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			config := head + withTestImage(c.config)
			extents := attributeExtents(config, topLevel(c.path))
			for _, d := range planDiagnostics(t, rc, config) {
				diags.Add(1)
				if d.Range != nil && withinAny(d.Range.Start.Byte, d.Range.End.Byte, extents) {
					inside.Add(1)
					continue
				}
				if len(extents) == 0 && d.Range != nil && strings.HasPrefix(lineAt(config, d.Range.Start.Byte), "resource ") {
					absent.Add(1) // the attribute at fault is missing (role, say): the resource is the place
					continue
				}
				outside.Add(1)
				at := -1
				if d.Range != nil {
					at = d.Range.Start.Byte
				}
				t.Errorf("case %d %s: %q points at %q, not inside %s", i, c.source, d.Summary, lineAt(config, max(at, 0)), topLevel(c.path))
			}
		}()
	}
	wg.Wait()
	t.Logf("%d suite cases, %d error diagnostics: %d inside the attribute at fault, %d on the resource for a missing attribute, %d elsewhere",
		len(cases), diags.Load(), inside.Load(), absent.Load(), outside.Load())
	if len(cases) < 150 {
		t.Errorf("only %d suite cases; the suites hold more than 150", len(cases))
	}
}

// topLevel is the first attribute name of a path in Terraform's notation.
func topLevel(p string) string {
	if end := strings.IndexAny(p, ".["); end >= 0 {
		return p[:end]
	}
	return p
}

// attributeExtents are the byte ranges of every `name = value` of the config at two spaces'
// indentation (a resource's top-level attributes): to the matching bracket or brace, or the end
// of the line.
func attributeExtents(config, name string) [][2]int {
	var out [][2]int
	for off := 0; ; {
		i := strings.Index(config[off:], "\n  "+name+" ")
		if i < 0 {
			return out
		}
		start := off + i + 3
		eq := strings.Index(config[start:], "=")
		rest := strings.TrimLeft(config[start+eq+1:], " ")
		valueAt := len(config) - len(rest)
		end := valueAt + strings.Index(rest+"\n", "\n")
		if len(rest) > 0 && (rest[0] == '{' || rest[0] == '[') {
			end = valueAt + matchingBracket(rest) + 1
		}
		out = append(out, [2]int{start, end})
		off = end
	}
}

// matchingBracket is the offset of the bracket or brace closing the first one of s, past quoted
// strings (a key may hold a brace).
func matchingBracket(s string) int {
	depth, quoted := 0, false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case quoted && c == '\\':
			i++
		case c == '"':
			quoted = !quoted
		case quoted:
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			if depth--; depth == 0 {
				return i
			}
		}
	}
	return len(s) - 1
}

func withinAny(from, to int, extents [][2]int) bool {
	for _, e := range extents {
		if from >= e[0] && to <= e[1] {
			return true
		}
	}
	return false
}
