// Package installation checks the Karpenter a configuration depends on, as the cluster runs it:
// the controller's version, feature gates and cluster name against the provider's settings.
// Pure: no Terraform, no AWS SDK; the deployment is read elsewhere (internal/kubeclient).
package installation

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
	"github.com/nodeplane/terraform-provider-karpenter/internal/manifest"
	"github.com/nodeplane/terraform-provider-karpenter/internal/reservations"
)

// StandardSelector is the label Karpenter's Helm chart puts on its controller Deployment.
const StandardSelector = "app.kubernetes.io/name=karpenter"

// Controller is Karpenter's controller as its Deployment describes it.
type Controller struct {
	// Namespace and Name locate the Deployment.
	Namespace, Name string
	// Image is the controller container's image; Version its tag ("1.9.3"), "" when the image
	// names no version (a digest, latest, a fork's tag).
	Image, Version string
	// Gates are the feature gates set on the controller (FEATURE_GATES, AWS_FEATURE_GATES or
	// --feature-gates), by name.
	Gates map[string]bool
	// ClusterName and InterruptionQueue are its CLUSTER_NAME and INTERRUPTION_QUEUE ("" unset).
	ClusterName, InterruptionQueue string
}

// Container is the part of a pod's container the controller is read from.
type Container struct {
	Name, Image string
	Env         map[string]string
	Args        []string
}

var versionTag = regexp.MustCompile(`:v?(\d+\.\d+\.\d+)(?:@|$)`)

// FromContainers reads the controller from its Deployment's containers: the one named
// "controller", else the one whose image names karpenter, else the first.
func FromContainers(namespace, name string, containers []Container) Controller {
	c := Controller{Namespace: namespace, Name: name, Gates: map[string]bool{}}
	if len(containers) == 0 {
		return c
	}
	i := slices.IndexFunc(containers, func(k Container) bool { return k.Name == "controller" })
	if i < 0 {
		i = max(0, slices.IndexFunc(containers, func(k Container) bool { return strings.Contains(k.Image, "karpenter") }))
	}
	k := containers[i]
	c.Image = k.Image
	if m := versionTag.FindStringSubmatch(k.Image); m != nil {
		c.Version = m[1]
	}
	c.ClusterName, c.InterruptionQueue = k.Env["CLUSTER_NAME"], k.Env["INTERRUPTION_QUEUE"]
	parseGates(c.Gates, k.Env["FEATURE_GATES"])
	parseGates(c.Gates, k.Env["AWS_FEATURE_GATES"])
	for _, a := range k.Args {
		for _, flag := range []string{"--feature-gates=", "--aws-feature-gates="} {
			if v, ok := strings.CutPrefix(a, flag); ok {
				parseGates(c.Gates, v)
			}
		}
	}
	return c
}

// parseGates reads "A=true,B=false" into gates.
func parseGates(gates map[string]bool, s string) {
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		if ok && k != "" {
			gates[k] = strings.EqualFold(strings.TrimSpace(v), "true")
		}
	}
}

// Want is what the provider's settings say of the installation.
type Want struct {
	KarpenterVersion string   // the provider's karpenter_version, "1.15"
	FeatureGates     []string // karpenter_feature_gates
	ClusterName      string   // cluster_name ("" unset)
	Region           string   // the provider's region: the cluster's, where the controller calls AWS
}

var (
	pathVersion = attrpath.Of("karpenter_version")
	pathGates   = attrpath.Of("karpenter_feature_gates")
	pathCluster = attrpath.Of("cluster_name")
)

// Minor is the minor the controller runs ("1.9" of "1.9.3"); "" when its image names no version.
func (c Controller) Minor() string {
	if c.Version == "" {
		return ""
	}
	return strings.TrimPrefix(manifest.MinorOf(c.Version), "v")
}

// OlderMinor is the minor of a controller older than karpenterVersion that the provider has
// CRDs for ("1.9"), whose admission every manifest must pass too; "" otherwise.
func (c Controller) OlderMinor(karpenterVersion string) string {
	minor := c.Minor()
	if minor == "" || manifest.AtLeast(minor, karpenterVersion) || !slices.Contains(manifest.Versions(), minor) {
		return ""
	}
	return minor
}

// Check compares the running controller with the settings: a controller older than
// karpenter_version is a warning when its CRDs are known (the manifests are then admitted against
// them too: OlderMinor), else an error; a newer one a warning; a gate the settings count on that the controller runs without is an
// error; another cluster name is an error.
func Check(c Controller, w Want) (errs, warnings []attrpath.Finding) {
	where := fmt.Sprintf("Karpenter's controller (deployment %s/%s, image %s)", c.Namespace, c.Name, c.Image)
	switch minor := c.Minor(); {
	case c.Version == "":
		warnings = append(warnings, attrpath.Finding{Path: pathVersion, Summary: "Karpenter version not known",
			Message: where + " names no release version; the plan assumes karpenter_version " + w.KarpenterVersion + " runs"})
	case minor != w.KarpenterVersion:
		f := attrpath.Finding{Path: pathVersion, Summary: "Karpenter version skew", Message: fmt.Sprintf("%s runs Karpenter %s but "+
			"karpenter_version is %q: the plan admits the manifests against %s's CRDs and models its decisions. Set karpenter_version = %q "+
			"(fields that version lacks then fail on their attributes), or upgrade the controller first", where, c.Version, w.KarpenterVersion,
			w.KarpenterVersion, minor)}
		switch {
		case manifest.AtLeast(minor, w.KarpenterVersion):
			warnings = append(warnings, f)
		case c.OlderMinor(w.KarpenterVersion) != "":
			// The manifests are also admitted against the running minor's CRDs (a field it lacks is an
			// error on its attribute), so the skew itself is a warning.
			f.Message += fmt.Sprintf(". Every manifest is also checked against Karpenter %s's CRDs: a field this configuration uses "+
				"that %s lacks is an error on its attribute", minor, minor)
			warnings = append(warnings, f)
		default:
			errs = append(errs, f) // older than any release the provider knows: nothing to check against
		}
	}
	errs = append(errs, checkGates(c, w.FeatureGates, where)...)
	if c.ClusterName != "" && w.ClusterName != "" && c.ClusterName != w.ClusterName {
		errs = append(errs, attrpath.Finding{Path: pathCluster, Summary: "Another cluster's Karpenter",
			Message: fmt.Sprintf("cluster_name is %q but %s runs for cluster %q (CLUSTER_NAME): the provider would plan for a cluster "+
				"this Karpenter does not serve", w.ClusterName, where, c.ClusterName)})
	}
	return errs, warnings
}

// checkGates compares each gate karpenter_feature_gates sets (the last entry that names it:
// `Name` or `Name=true` on, `Name=false` off) with the controller's: a gate it does not set has
// its release default (reservations.GateDefaultOf). A mismatch is an error on the entry.
func checkGates(c Controller, gates []string, where string) []attrpath.Finding {
	last := map[string]int{}
	for i, g := range gates {
		if name, _, ok := reservations.ParseGate(g); ok {
			last[name] = i
		}
	}
	var errs []attrpath.Finding
	for i, g := range gates {
		name, want, ok := reservations.ParseGate(g)
		if !ok || last[name] != i {
			continue
		}
		running, set := c.Gates[name]
		if !set {
			running = reservations.GateDefaultOf(name)
		}
		switch {
		case want && !running:
			errs = append(errs, attrpath.Finding{Path: pathGates.Index(i), Summary: "Feature gate off in the cluster",
				Message: fmt.Sprintf("karpenter_feature_gates turns %s on, but %s runs without it (its FEATURE_GATES / AWS_FEATURE_GATES do not "+
					"set %s=true): what the plan accepts because of it, Karpenter ignores or refuses. Turn the gate on in the controller, "+
					"or remove it here", name, where, name)})
		case !want && running:
			errs = append(errs, attrpath.Finding{Path: pathGates.Index(i), Summary: "Feature gate on in the cluster",
				Message: fmt.Sprintf("karpenter_feature_gates sets %s=false, but %s runs with it on (set in its FEATURE_GATES / "+
					"AWS_FEATURE_GATES, or on by default): the plan models a Karpenter that does not run. Set %s=false in the controller, "+
					"or remove the entry here", name, where, name)})
		}
	}
	return errs
}
