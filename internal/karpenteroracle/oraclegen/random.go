package oraclegen

import (
	"fmt"
	"math/rand"
	"strings"
)

// Gen draws random EC2NodeClass and NodePool specs (seeded: the same seed draws the same
// specs). The values are of the right types (Karpenter's Go types must decode them) but are not
// necessarily valid for the CRD's validation rules: the hashes are computed on whatever the API
// server would store.
type Gen struct {
	r *rand.Rand
	// freeFormKubelet: the Karpenter minor's spec.kubelet is free-form (1.15), so maxPods may
	// be a CEL expression (a string); before 1.15 it is an integer.
	freeFormKubelet bool
}

// New returns a Gen for specs of Karpenter karpenterMinor ("1.9" … "1.15"). Every minor gets
// every field the provider renders; the CRDs of older minors prune those they lack, on both
// sides of the comparison.
func New(seed int64, karpenterMinor string) *Gen {
	return &Gen{r: rand.New(rand.NewSource(seed)), freeFormKubelet: karpenterMinor == "1.15"}
}

// maybe is true with probability p.
func (g *Gen) maybe(p float64) bool { return g.r.Float64() < p }

func (g *Gen) pick(xs ...string) string { return xs[g.r.Intn(len(xs))] }

// trickyStrings are strings that YAML or JSON encoders like to mangle (booleans, numbers, nulls,
// leading and trailing spaces, quotes, newlines, non-ASCII), plus ordinary ones.
var trickyStrings = []string{
	"", "a", "team-a", "yes", "no", "true", "False", "on", "~", "null", "1000", "0x1F", "1e3",
	"-", "a: b", "#x", "'q'", "\"dq\"", " lead", "trail ", "multi\nline", "tab\there", "ü-ünï",
	"日本", "emoji-🙂", "a,b", "{x}", "[y]", "*star", "&amp", "!bang", "%pct", "@at", "back\\slash",
}

func (g *Gen) str() string {
	if g.maybe(0.5) {
		return trickyStrings[g.r.Intn(len(trickyStrings))]
	}
	const letters = "abcdefghijklmnopqrstuvwxyz0123456789-._/"
	b := make([]byte, 1+g.r.Intn(12))
	for i := range b {
		b[i] = letters[g.r.Intn(len(letters))]
	}
	return string(b)
}

// key is a map key: tag keys, label keys, kubelet resource names.
func (g *Gen) key() string {
	if g.maybe(0.3) {
		return g.pick("karpenter.sh/discovery", "Name", "kubernetes.io/cluster/my-cluster", "team",
			"app.kubernetes.io/name", "env", "cpu", "memory", "ephemeral-storage", "pid")
	}
	return g.str()
}

func (g *Gen) strMap(most int) map[string]string {
	n := g.r.Intn(most + 1)
	if n == 0 {
		if g.maybe(0.2) {
			return map[string]string{}
		}
		return nil
	}
	m := make(map[string]string, n)
	for range n {
		m[g.key()] = g.str()
	}
	return m
}

func (g *Gen) boolPtr(p float64) *bool {
	if !g.maybe(p) {
		return nil
	}
	b := g.maybe(0.5)
	return &b
}

func (g *Gen) int32Ptr(p float64, lo, hi int32) *int32 {
	if !g.maybe(p) {
		return nil
	}
	v := lo + g.r.Int31n(hi-lo+1)
	return &v
}

func (g *Gen) int64Ptr(p float64, lo, hi int64) *int64 {
	if !g.maybe(p) {
		return nil
	}
	v := lo + g.r.Int63n(hi-lo+1)
	return &v
}

// quantity is a resource quantity in one of its many spellings ("100Gi", "0.5Ti", "1e3", "20G",
// "107374182400"): Karpenter hashes its canonical form.
func (g *Gen) quantity() string {
	switch g.r.Intn(5) {
	case 0:
		return fmt.Sprintf("%d%s", 1+g.r.Intn(2000), g.pick("Gi", "Mi", "Ti", "G", "M", "T", "Ki", "k"))
	case 1:
		return fmt.Sprintf("0.%d%s", 1+g.r.Intn(9), g.pick("Ti", "Gi", "T"))
	case 2:
		return fmt.Sprintf("%de%d", 1+g.r.Intn(9), g.r.Intn(12))
	case 3:
		return fmt.Sprint(int64(1+g.r.Intn(100)) << 30)
	default:
		return g.pick("20Gi", "100Gi", "1024Mi", "1Ti", "20G", "500M", "1000Gi", "2048Mi")
	}
}

// duration is a Go duration string, in spellings that parse to the same value ("720h",
// "30d" does not parse, so it is not drawn).
func (g *Gen) duration() string {
	switch g.r.Intn(4) {
	case 0:
		return fmt.Sprintf("%dh", g.r.Intn(2000))
	case 1:
		return fmt.Sprintf("%dm", g.r.Intn(100000))
	case 2:
		return fmt.Sprintf("%ds", g.r.Intn(100000))
	default:
		return g.pick("720h", "1h30m", "0s", "30s", "168h", "5m0s", "1h0m0s", "90m", "2h45m30s")
	}
}

// userData is a user data script: shell, TOML, MIME multi-part, or a tricky string.
func (g *Gen) userData() string {
	switch g.r.Intn(4) {
	case 0:
		return "#!/bin/bash\necho \"hello " + g.str() + "\"\n"
	case 1:
		return "[settings.kubernetes]\nmax-pods = " + fmt.Sprint(g.r.Intn(200)) + "\n"
	case 2:
		return "MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"BOUNDARY\"\n\n--BOUNDARY\n" +
			"Content-Type: text/x-shellscript; charset=\"us-ascii\"\n\n#!/bin/bash\necho " + g.str() + "\n--BOUNDARY--\n"
	default:
		return g.str() + strings.Repeat(" ", g.r.Intn(3))
	}
}
