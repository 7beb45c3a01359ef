// Package kubeletconfig checks and evaluates an EC2NodeClass spec.kubelet the way Karpenter
// v1.15 (aws/karpenter-provider-aws v1.15.2) does, so a plan can report what the controller
// would otherwise only report later as ValidationSucceeded=False on the EC2NodeClass.
//
// In v1.15 spec.kubelet is an open map: the API server accepts anything, and the controller
// decides. This package reproduces those decisions without a cluster, AWS or Terraform:
//
//   - Validate is ValidateKubeletConfig: a strict decode against the upstream
//     k8s.io/kubelet/config/v1beta1 KubeletConfiguration (unknown and mistyped fields fail) as of
//     k8s.io/kubelet v0.37.0, the version Karpenter v1.15.2 builds against, plus
//     the semantic rules the Go type can't express (eviction signals and values, reservable
//     resources, ranges, pairing of evictionSoft with evictionSoftGracePeriod, fields Karpenter
//     owns).
//   - FamilyProblems is validateKubeletFieldsSupported: which fields an AMI family would drop.
//   - ExpressionProblems is the NodeClassCEL gate check followed by the compile check of every
//     expression (validateKubeletExpressions).
//   - ResolveMaxPods, EvaluateMaxPods, EvaluateReserved and InstanceProblems are the per instance
//     type evaluation (resolveMaxPods, buildCELVars, ResolveResourceMap,
//     evaluateKubeletExpressions).
//
// # Expressions
//
// Three fields may hold a CEL expression instead of a value, evaluated per instance type:
// maxPods (a JSON string instead of an integer) and the values of kubeReserved and
// systemReserved (any value that is not a parseable resource quantity). Expressions are honoured
// only when the controller runs with the NodeClassCEL feature gate (FeatureGate), which is off by
// default (--aws-feature-gates / AWS_FEATURE_GATES, default "NodeClassCEL=false,..."). With the
// gate off, the validation controller rejects any NodeClass carrying an expression, and
// resolution ignores expressions (maxPods falls back to the family default, expression-valued
// reservations are dropped).
//
// The variables, all int except instance_type (string):
//
//   - vcpus: the instance type's default vCPU count (EC2 VCpuInfo.DefaultVCpus).
//   - memory_mib: the instance type's memory in MiB as EC2 reports it (MemoryInfo.SizeInMiB), not
//     the VM-overhead-adjusted capacity Karpenter schedules with.
//   - default_enis: MaximumNetworkInterfaces of the default network card, as EC2 reports it; it is
//     not reduced by reserved ENIs or EFA-only interfaces.
//   - ips_per_eni: Ipv4AddressesPerInterface.
//   - max_pods: in the maxPods expression, the pod count the instance type would get without a
//     maxPods setting (the family default, then the podsPerCore cap); in kubeReserved and
//     systemReserved expressions, the instance type's resolved pod capacity (the resolved maxPods,
//     or the family default when unset, then the podsPerCore cap). See ResolveMaxPods.
//   - instance_type: the instance type name, e.g. "m5.large".
//
// Besides CEL's standard operators, min and max take two arguments (int or double, mixed
// allowed; a double argument makes the result a double). An expression must type-check to int
// or double. A double result is truncated toward zero; NaN and ±Inf are errors, as are CEL
// runtime errors (integer division or modulo by zero, int64 overflow).
//
// Units of the result:
//
//   - maxPods: a pod count; it must fall within [0, 2147483647].
//   - cpu: millicores, rounded up to a multiple of 10 and written "<n>m" ("vcpus * 30" on 2 vCPUs
//     is "60m"; "70 + vcpus" is "80m").
//   - memory: MiB, rounded up to a multiple of 16 and written "<n>Mi" ("memory_mib / 100" on
//     8192 MiB is 81, written "96Mi").
//   - ephemeral-storage: GiB, not rounded, written "<n>Gi".
//   - pid (and any other key): a bare integer, not rounded.
//
// Rounding leaves 0 and exact multiples alone and never pushes a value within one step of
// math.MaxInt64 past it. A negative result is an error at validation time; at resolution
// Karpenter drops that entry (and entries whose evaluation fails) from the map.
package kubeletconfig
