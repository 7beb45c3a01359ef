package requirements

import (
	"fmt"
	"slices"
	"strings"
)

// EKS Auto Mode labels its nodes in its own domain: an Auto Mode NodePool selects instance types
// with eks.amazonaws.com/instance-* keys, where Karpenter's EC2NodeClass pools use
// karpenter.k8s.aws/instance-*. The keys, values and meanings are the user guide's table "EKS
// Auto Mode Supported Labels" (https://docs.aws.amazon.com/eks/latest/userguide/create-node-pool.html);
// each has the same values as the Karpenter label it maps to.
const (
	AutoModeLabelDomain      = "eks.amazonaws.com"
	LabelAutoModeComputeType = "eks.amazonaws.com/compute-type" // "auto" on every Auto Mode node
	AutoModeComputeType      = "auto"
)

var autoModeLabels = map[string]string{
	"eks.amazonaws.com/instance-hypervisor":                      LabelInstanceHypervisor,
	"eks.amazonaws.com/instance-encryption-in-transit-supported": LabelInstanceEncryptionInTransit,
	"eks.amazonaws.com/instance-category":                        LabelInstanceCategory,
	"eks.amazonaws.com/instance-generation":                      LabelInstanceGeneration,
	"eks.amazonaws.com/instance-family":                          LabelInstanceFamily,
	"eks.amazonaws.com/instance-size":                            LabelInstanceSize,
	"eks.amazonaws.com/instance-cpu":                             LabelInstanceCPU,
	"eks.amazonaws.com/instance-cpu-manufacturer":                LabelInstanceCPUManufacturer,
	"eks.amazonaws.com/instance-memory":                          LabelInstanceMemory,
	"eks.amazonaws.com/instance-ebs-bandwidth":                   LabelInstanceEBSBandwidth,
	"eks.amazonaws.com/instance-network-bandwidth":               LabelInstanceNetworkBandwidth,
	"eks.amazonaws.com/instance-gpu-name":                        LabelInstanceGPUName,
	"eks.amazonaws.com/instance-gpu-manufacturer":                LabelInstanceGPUManufacturer,
	"eks.amazonaws.com/instance-gpu-count":                       LabelInstanceGPUCount,
	"eks.amazonaws.com/instance-gpu-memory":                      LabelInstanceGPUMemory,
	"eks.amazonaws.com/instance-local-nvme":                      LabelInstanceLocalNVMe,
}

// autoModeUnsupported are well-known labels an Auto Mode node never carries: it runs Linux only.
var autoModeUnsupported = []string{LabelOS, LabelWindowsBuild}

// KeyProblem is a requirement whose key does not fit the pool's kind of node class.
type KeyProblem struct {
	Index   int
	Message string
}

// AutoModeKeyProblems are the requirements whose keys the pool's node class does not label nodes
// with: on an Auto Mode NodeClass (autoMode), Karpenter's karpenter.k8s.aws keys and the Linux-only
// labels; on an EC2NodeClass, Auto Mode's eks.amazonaws.com instance keys. Each names the other
// kind's key where one exists.
func AutoModeKeyProblems(reqs []Requirement, autoMode bool) []KeyProblem {
	var out []KeyProblem
	for i, r := range reqs {
		if msg := autoModeKeyProblem(r.Key, autoMode); msg != "" {
			out = append(out, KeyProblem{Index: i, Message: msg})
		}
	}
	return out
}

func autoModeKeyProblem(key string, autoMode bool) string {
	const page = " (https://docs.aws.amazon.com/eks/latest/userguide/create-node-pool.html)"
	switch {
	case autoMode && strings.HasPrefix(key, domainKarpenterAWS+"/"):
		if eks := autoModeKeyOf(key); eks != "" {
			return fmt.Sprintf("the pool's node class is an EKS Auto Mode NodeClass, whose nodes carry %s instead of %s%s", eks, key, page)
		}
		return fmt.Sprintf("the pool's node class is an EKS Auto Mode NodeClass, whose nodes carry no %s and no Auto Mode label of the "+
			"same meaning%s", key, page)
	case autoMode && slices.Contains(autoModeUnsupported, key):
		return fmt.Sprintf("EKS Auto Mode runs Linux nodes only and does not support %s%s", key, page)
	case !autoMode && autoModeLabels[key] != "":
		return fmt.Sprintf("%s labels EKS Auto Mode nodes; the pool's node class is an EC2NodeClass, whose nodes carry %s", key, autoModeLabels[key])
	}
	return ""
}

func autoModeKeyOf(karpenterKey string) string {
	for eks, k := range autoModeLabels {
		if k == karpenterKey {
			return eks
		}
	}
	return ""
}

// ForAutoMode is an Auto Mode pool's requirements read over the instance-type catalog's labels,
// which are Karpenter's: each eks.amazonaws.com instance key becomes the karpenter.k8s.aws key of
// the same meaning and values, and a compute-type requirement that every Auto Mode node meets
// (In or Exists with "auto", NotIn without it) is dropped. Indexes are kept: the dropped ones
// become a key no type lacks.
func ForAutoMode(reqs []Requirement) []Requirement {
	out := make([]Requirement, len(reqs))
	for i, r := range reqs {
		r.Values = slices.Clone(r.Values)
		if k, ok := autoModeLabels[r.Key]; ok {
			r.Key = k
		}
		if r.Key == LabelAutoModeComputeType && computeTypeMet(r) {
			// Every type of the catalog carries an architecture: the requirement then selects all of them.
			r = Requirement{Key: LabelArch, Operator: OpExists}
		}
		out[i] = r
	}
	return out
}

func computeTypeMet(r Requirement) bool {
	has := slices.Contains(r.Values, AutoModeComputeType)
	switch r.Operator {
	case OpIn:
		return has
	case OpNotIn:
		return !has
	case OpExists:
		return true
	}
	return false
}
