package planner

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
	"github.com/nodeplane/terraform-provider-karpenter/internal/installation"
	"github.com/nodeplane/terraform-provider-karpenter/internal/kubeclient"
)

var pathKubernetes = attrpath.Of("kubernetes")

// ReadCRDs reads the CRD of each kind names lists (installation.CRDNames, by kind) through read
// and compares them with version's (installation.CompareCRDs). A CRD that cannot be read (no
// RBAC get on customresourcedefinitions, a failed request) leaves its kind unchecked: one
// warning for all of them, since the plan goes on without.
func ReadCRDs(ctx context.Context, read func(ctx context.Context, name string) (*kubeclient.CRD, error), names map[string]string,
	version string) (*installation.CRDCheck, []attrpath.Finding) {
	var served []installation.ServedCRD
	var failed []string
	for _, kind := range slices.Sorted(maps.Keys(names)) {
		crd, err := read(ctx, names[kind])
		if err != nil {
			failed = append(failed, fmt.Sprintf("%s: %v", names[kind], err))
			continue
		}
		served = append(served, servedCRD(kind, names[kind], crd))
	}
	check, warnings := installation.CompareCRDs(version, served)
	if len(failed) > 0 {
		warnings = append([]attrpath.Finding{{Path: pathKubernetes, Summary: "Karpenter CRDs not checked",
			Message: fmt.Sprintf("the plan compares the cluster's Karpenter CRDs with Karpenter %s's, but cannot read %s. Manifests of "+
				"those kinds are checked against the embedded CRDs only (grant get on customresourcedefinitions.apiextensions.k8s.io to "+
				"check them against the cluster's)", version, strings.Join(failed, "; "))}}, warnings...)
	}
	return check, warnings
}

// servedCRD is what the check reads of a CRD: its served versions' schemas (nil crd: none).
func servedCRD(kind, name string, crd *kubeclient.CRD) installation.ServedCRD {
	out := installation.ServedCRD{Kind: kind, Name: name, Missing: crd == nil, Schemas: map[string][]byte{}}
	if crd == nil {
		return out
	}
	for _, v := range crd.Versions {
		if v.Served {
			out.Schemas[v.Name] = v.Schema
		}
	}
	return out
}
