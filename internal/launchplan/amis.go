package launchplan

import (
	"strings"

	"github.com/nodeplane/terraform-provider-karpenter/internal/catalog"
	"github.com/nodeplane/terraform-provider-karpenter/internal/nodeclass"
	"github.com/nodeplane/terraform-provider-karpenter/internal/requirements"
)

// amiFor is the index of the first image (Karpenter's order: newest first) that serves the
// type, as Karpenter's MapToInstanceTypes picks it; -1 when none does.
func amiFor(amis []nodeclass.AMI, it *catalog.InstanceType) int {
	labels := catalog.Labels(it)
	for i, a := range amis {
		if a.Serves(labels) {
			return i
		}
	}
	return -1
}

// imageKind describes a type by what an image must serve for it: its architecture, and its
// accelerator when it has one (the alias variants nvidia and neuron).
func imageKind(it *catalog.InstanceType) string {
	l := catalog.Labels(it)
	k := l[requirements.LabelArch]
	if k == "" {
		k = strings.Join(it.Architectures, "/")
	}
	if _, ok := l[requirements.LabelInstanceGPUCount]; ok {
		return k + " with a GPU"
	}
	if _, ok := l[requirements.LabelInstanceAcceleratorCount]; ok {
		return k + " with an accelerator"
	}
	return k
}

// amiSummary names what the images serve, e.g. "amd64 (ami-1), arm64 nvidia (ami-2)".
func amiSummary(amis []nodeclass.AMI) string {
	parts := make([]string, len(amis))
	for i, a := range amis {
		parts[i] = a.Architecture
		if a.Variant != "" {
			parts[i] += " " + string(a.Variant)
		}
		parts[i] += " (" + a.ID + ")"
	}
	return strings.Join(parts, ", ")
}
