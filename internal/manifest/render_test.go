package manifest

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

func minimalEC2NodeClass() EC2NodeClass {
	return EC2NodeClass{
		Name: "default",
		Spec: EC2NodeClassSpec{
			SubnetSelectorTerms:        []SubnetSelectorTerm{{Tags: map[string]string{"karpenter.sh/discovery": "demo"}}},
			SecurityGroupSelectorTerms: []SecurityGroupSelectorTerm{{Tags: map[string]string{"karpenter.sh/discovery": "demo"}}},
			AMISelectorTerms:           []AMISelectorTerm{{Alias: "al2023@latest"}},
			Role:                       "KarpenterNodeRole-demo",
		},
	}
}

func maximalEC2NodeClass() EC2NodeClass {
	return EC2NodeClass{
		Name:        "gpu-efa",
		Labels:      map[string]string{"app.kubernetes.io/managed-by": "terraform", "tier": "1"},
		Annotations: map[string]string{"example.com/note": "maximal example", "example.com/flag": "true"},
		Spec: EC2NodeClassSpec{
			SubnetSelectorTerms: []SubnetSelectorTerm{
				{Tags: map[string]string{"karpenter.sh/discovery": "demo", "kubernetes.io/role/internal-elb": "1"}},
				{ID: "subnet-0123456789abcdef0"},
			},
			SecurityGroupSelectorTerms: []SecurityGroupSelectorTerm{
				{Tags: map[string]string{"karpenter.sh/discovery": "*"}},
				{ID: "sg-0123456789abcdef0"},
				{Name: "eks-cluster-sg-demo"},
			},
			AMISelectorTerms: []AMISelectorTerm{
				{Name: "amazon-eks-node-al2023-x86_64-standard-1.33-*", Owner: "amazon", Tags: map[string]string{"release": "stable"}},
				{ID: "ami-0123456789abcdef0"},
				{SSMParameter: "/aws/service/eks/optimized-ami/1.33/amazon-linux-2023/x86_64/standard/recommended/image_id"},
			},
			AMIFamily:                "AL2023",
			Role:                     "KarpenterNodeRole-demo",
			AssociatePublicIPAddress: new(false),
			IPPrefixCount:            new(int32(0)),
			UserData:                 "#!/bin/bash\necho \"hello\"\n",
			Tags:                     map[string]string{"team": "platform", "spot": "true", "cost-center": "1000", "owner": "yes"},
			Kubelet: KubeletConfiguration{
				ClusterDNS:                  []string{"10.100.0.10"},
				MaxPods:                     new(int32(110)),
				PodsPerCore:                 new(int32(0)),
				SystemReserved:              map[string]string{"cpu": "100m", "memory": "100Mi", "ephemeral-storage": "1Gi", "pid": "1000"},
				KubeReserved:                map[string]string{"cpu": "200m", "memory": "1"},
				EvictionHard:                map[string]string{"memory.available": "5%", "nodefs.available": "10%"},
				EvictionSoft:                map[string]string{"memory.available": "500Mi"},
				EvictionSoftGracePeriod:     map[string]string{"memory.available": "1m0s"},
				EvictionMaxPodGracePeriod:   new(int32(60)),
				ImageGCHighThresholdPercent: new(int32(85)),
				ImageGCLowThresholdPercent:  new(int32(80)),
				CPUCFSQuota:                 new(false),
			},
			BlockDeviceMappings: []BlockDeviceMapping{
				{DeviceName: "/dev/xvda", RootVolume: new(true), EBS: BlockDevice{
					DeleteOnTermination: new(true), Encrypted: new(true), IOPS: new(int64(3000)),
					KMSKeyID: "alias/ebs", Throughput: new(int64(125)), VolumeSize: "100Gi", VolumeType: "gp3",
				}},
				{DeviceName: "/dev/xvdb", RootVolume: new(false), EBS: BlockDevice{SnapshotID: "snap-0123456789abcdef0", Encrypted: new(false)}},
			},
			InstanceStorePolicy: "RAID0",
			NetworkInterfaces: []NetworkInterface{
				{NetworkCardIndex: 0, DeviceIndex: 0, InterfaceType: "interface"},
				{NetworkCardIndex: 0, DeviceIndex: 1, InterfaceType: "efa-only"},
				{NetworkCardIndex: 1, DeviceIndex: 0, InterfaceType: "interface"},
				{NetworkCardIndex: 1, DeviceIndex: 1, InterfaceType: "efa-only"},
			},
			DetailedMonitoring: new(true),
			MetadataOptions: MetadataOptions{
				HTTPEndpoint: "enabled", HTTPProtocolIPv6: "disabled", HTTPPutResponseHopLimit: new(int64(2)), HTTPTokens: "required",
			},
		},
	}
}

func minimalNodePool() NodePool {
	return NodePool{
		Name: "default",
		Spec: NodePoolSpec{Template: NodeClaimTemplate{Spec: NodeClaimTemplateSpec{
			NodeClassRef: NodeClassReference{Name: "default"},
		}}},
	}
}

func maximalNodePool() NodePool {
	return NodePool{
		Name:        "general",
		Labels:      map[string]string{"team": "platform"},
		Annotations: map[string]string{"example.com/owner": "1000"},
		Spec: NodePoolSpec{
			Template: NodeClaimTemplate{
				Metadata: TemplateMetadata{
					Labels:      map[string]string{"workload": "general", "karpenter.sh/capacity-type": "spot", "enabled": "true", "zero": "0"},
					Annotations: map[string]string{"example.com/scrape": "true", "example.com/text": "a: b # not a comment"},
				},
				Spec: NodeClaimTemplateSpec{
					NodeClassRef: NodeClassReference{Group: "karpenter.k8s.aws", Kind: "EC2NodeClass", Name: "gpu-efa"},
					Requirements: []NodeSelectorRequirement{
						{Key: "karpenter.k8s.aws/instance-category", Operator: "In", Values: []string{"c", "m", "r"}, MinValues: new(int32(2))},
						{Key: "karpenter.sh/capacity-type", Operator: "In", Values: []string{"spot", "on-demand"}},
						{Key: "kubernetes.io/arch", Operator: "NotIn", Values: []string{"arm64"}},
						{Key: "karpenter.k8s.aws/instance-generation", Operator: "Gt", Values: []string{"5"}},
						{Key: "karpenter.k8s.aws/instance-cpu", Operator: "Lt", Values: []string{"65"}},
						{Key: "karpenter.k8s.aws/instance-memory", Operator: "Gte", Values: []string{"4096"}},
						{Key: "karpenter.k8s.aws/instance-gpu-count", Operator: "Lte", Values: []string{"0"}},
						{Key: "example.com/accelerator", Operator: "Exists"},
						{Key: "example.com/legacy", Operator: "DoesNotExist"},
					},
					Taints:                 []Taint{{Key: "example.com/dedicated", Value: "gpu", Effect: "NoSchedule"}, {Key: "example.com/no-value", Effect: "PreferNoSchedule"}},
					StartupTaints:          []Taint{{Key: "node.cilium.io/agent-not-ready", Value: "true", Effect: "NoExecute"}},
					ExpireAfter:            "720h",
					TerminationGracePeriod: "48h",
				},
			},
			Disruption: Disruption{
				ConsolidationPolicy: "WhenEmptyOrUnderutilized",
				ConsolidateAfter:    "1m",
				Budgets: []Budget{
					{Nodes: "10%"},
					{Nodes: "0", Reasons: []string{"Drifted", "Underutilized"}, Schedule: "0 9 * * mon-fri", Duration: "8h"},
				},
			},
			Limits: map[string]string{"cpu": "1000", "memory": "1000Gi", "nvidia.com/gpu": "8"},
			Weight: new(int32(10)),
		},
	}
}

func staticNodePool() NodePool {
	np := minimalNodePool()
	np.Name = "static"
	np.Spec.Replicas = new(int64(0))
	np.Spec.Limits = map[string]string{"nodes": "5"}
	return np
}

func mustRenderEC2NodeClass(t testing.TB, nc EC2NodeClass) string {
	t.Helper()
	out, err := RenderEC2NodeClass(nc)
	if err != nil {
		t.Fatalf("RenderEC2NodeClass: %v", err)
	}
	recordManifest(out)
	return out
}

func mustRenderNodePool(t testing.TB, np NodePool) string {
	t.Helper()
	out, err := RenderNodePool(np)
	if err != nil {
		t.Fatalf("RenderNodePool: %v", err)
	}
	recordManifest(out)
	return out
}

func TestRenderMinimalGolden(t *testing.T) {
	tests := []struct {
		name   string
		render func(*testing.T) string
		want   string
	}{
		{
			name:   "EC2NodeClass",
			render: func(t *testing.T) string { return mustRenderEC2NodeClass(t, minimalEC2NodeClass()) },
			want: `apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata:
  name: default
spec:
  subnetSelectorTerms:
    - tags:
        karpenter.sh/discovery: demo
  securityGroupSelectorTerms:
    - tags:
        karpenter.sh/discovery: demo
  amiSelectorTerms:
    - alias: al2023@latest
  role: KarpenterNodeRole-demo
`,
		},
		{
			name:   "NodePool",
			render: func(t *testing.T) string { return mustRenderNodePool(t, minimalNodePool()) },
			want: `apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: default
spec:
  template:
    spec:
      nodeClassRef:
        group: karpenter.k8s.aws
        kind: EC2NodeClass
        name: default
      requirements: []
`,
		},
		{
			name:   "static NodePool",
			render: func(t *testing.T) string { return mustRenderNodePool(t, staticNodePool()) },
			want: `apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: static
spec:
  template:
    spec:
      nodeClassRef:
        group: karpenter.k8s.aws
        kind: EC2NodeClass
        name: default
      requirements: []
  limits:
    nodes: "5"
  replicas: 0
`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.render(t)
			if got != tc.want {
				t.Errorf("rendered:\n%s\nwant:\n%s", got, tc.want)
			}
			admitted(t, got)
		})
	}
}

func TestRenderMaximal(t *testing.T) {
	tests := []struct {
		name   string
		render func(*testing.T) string
		// lines that must appear verbatim (indentation included).
		lines []string
		// substrings that must not appear.
		absent []string
	}{
		{
			name:   "EC2NodeClass",
			render: func(t *testing.T) string { return mustRenderEC2NodeClass(t, maximalEC2NodeClass()) },
			lines: []string{
				"apiVersion: karpenter.k8s.aws/v1",
				"kind: EC2NodeClass",
				"  name: gpu-efa",
				`    tier: "1"`,
				`    example.com/flag: "true"`,
				"        kubernetes.io/role/internal-elb: \"1\"",
				"    - id: subnet-0123456789abcdef0",
				`        karpenter.sh/discovery: "*"`,
				"    - name: eks-cluster-sg-demo",
				"    - name: amazon-eks-node-al2023-x86_64-standard-1.33-*",
				"      owner: amazon",
				"    - ssmParameter: /aws/service/eks/optimized-ami/1.33/amazon-linux-2023/x86_64/standard/recommended/image_id",
				"  amiFamily: AL2023",
				"  associatePublicIPAddress: false",
				"  ipPrefixCount: 0",
				"  userData: |",
				"    #!/bin/bash",
				`    echo "hello"`,
				`    cost-center: "1000"`,
				`    owner: "yes"`,
				`    spot: "true"`,
				"  kubelet:",
				"    clusterDNS: [10.100.0.10]",
				"    maxPods: 110",
				"    podsPerCore: 0",
				`      pid: "1000"`,
				`      memory: "1"`,
				"      memory.available: 5%",
				"      memory.available: 1m0s",
				"    cpuCFSQuota: false",
				"    - deviceName: /dev/xvda",
				"      rootVolume: true",
				"      rootVolume: false",
				"        volumeSize: 100Gi",
				"        kmsKeyID: alias/ebs",
				"        encrypted: false",
				"  instanceStorePolicy: RAID0",
				"    - networkCardIndex: 0",
				"      interfaceType: efa-only",
				"  detailedMonitoring: true",
				"    httpPutResponseHopLimit: 2",
				"    httpTokens: required",
			},
		},
		{
			name:   "NodePool",
			render: func(t *testing.T) string { return mustRenderNodePool(t, maximalNodePool()) },
			lines: []string{
				"apiVersion: karpenter.sh/v1",
				"kind: NodePool",
				`    example.com/owner: "1000"`,
				`        enabled: "true"`,
				`        zero: "0"`,
				`        example.com/text: "a: b # not a comment"`,
				"        - key: karpenter.k8s.aws/instance-category",
				"          operator: In",
				"          minValues: 2",
				`          values: ["5"]`,
				`          values: ["0"]`,
				"          operator: Exists",
				"        - key: example.com/no-value",
				`          value: "true"`,
				"      expireAfter: 720h",
				"      terminationGracePeriod: 48h",
				"    consolidationPolicy: WhenEmptyOrUnderutilized",
				"    consolidateAfter: 1m",
				"      - nodes: 10%",
				`      - nodes: "0"`,
				`        schedule: 0 9 * * mon-fri`,
				"        duration: 8h",
				`    cpu: "1000"`,
				"    memory: 1000Gi",
				`    nvidia.com/gpu: "8"`,
				"  weight: 10",
			},
			absent: []string{"replicas", "values: []"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.render(t)
			have := map[string]bool{}
			for _, l := range strings.Split(got, "\n") {
				have[l] = true
			}
			for _, l := range tc.lines {
				if !have[l] {
					t.Errorf("missing line %q", l)
				}
			}
			for _, s := range tc.absent {
				if strings.Contains(got, s) {
					t.Errorf("unexpected %q in output", s)
				}
			}
			for _, l := range strings.Split(got, "\n") {
				if strings.HasSuffix(l, "{}") || strings.HasSuffix(l, "[]") {
					t.Errorf("flow-style empty collection in output: %q", l)
				}
			}
			if t.Failed() {
				t.Logf("rendered:\n%s", got)
			}
			admitted(t, got)
		})
	}
}

func TestRenderTopLevelOrderAndMetadata(t *testing.T) {
	out := mustRenderEC2NodeClass(t, maximalEC2NodeClass())
	var n yaml.Node
	if err := yaml.Unmarshal([]byte(out), &n); err != nil {
		t.Fatal(err)
	}
	root := n.Content[0]
	var keys []string
	for i := 0; i < len(root.Content); i += 2 {
		keys = append(keys, root.Content[i].Value)
	}
	if want := []string{"apiVersion", "kind", "metadata", "spec"}; !reflect.DeepEqual(keys, want) {
		t.Errorf("top-level keys = %v, want %v", keys, want)
	}
	md := root.Content[5]
	var mdKeys []string
	for i := 0; i < len(md.Content); i += 2 {
		mdKeys = append(mdKeys, md.Content[i].Value)
	}
	if want := []string{"name", "labels", "annotations"}; !reflect.DeepEqual(mdKeys, want) {
		t.Errorf("metadata keys = %v, want %v", mdKeys, want)
	}
}

func TestRenderDeterministic(t *testing.T) {
	// Maps are rebuilt with many keys in different insertion orders; the output must not change.
	build := func(reverse bool) NodePool {
		np := maximalNodePool()
		labels := map[string]string{}
		keys := []string{"a", "b10", "b2", "B", "z", "0", "10", "9", "example.com/x", "example.com/X", "é"}
		if reverse {
			for i := len(keys) - 1; i >= 0; i-- {
				labels[keys[i]] = "v"
			}
		} else {
			for _, k := range keys {
				labels[k] = "v"
			}
		}
		np.Spec.Template.Metadata.Labels = labels
		return np
	}
	first := mustRenderNodePool(t, build(false))
	for i := range 50 {
		if got := mustRenderNodePool(t, build(i%2 == 1)); got != first {
			t.Fatalf("render %d differs:\n%s\nfirst:\n%s", i, got, first)
		}
	}
	// Keys are sorted bytewise.
	want := "        \"0\": v\n        \"10\": v\n        \"9\": v\n        B: v\n        a: v\n        b10: v\n        b2: v\n        example.com/X: v\n        example.com/x: v\n        z: v\n        é: v\n"
	if !strings.Contains(first, want) {
		t.Errorf("labels not sorted bytewise:\n%s", first)
	}
	a, b := mustRenderEC2NodeClass(t, maximalEC2NodeClass()), mustRenderEC2NodeClass(t, maximalEC2NodeClass())
	if a != b {
		t.Error("EC2NodeClass render is not deterministic")
	}
}

// ec2NodeClassDoc and nodePoolDoc are what a rendered document decodes into.
type ec2NodeClassDoc struct {
	APIVersion string           `yaml:"apiVersion" json:"apiVersion"`
	Kind       string           `yaml:"kind" json:"kind"`
	Metadata   objectMeta       `yaml:"metadata" json:"metadata"`
	Spec       EC2NodeClassSpec `yaml:"spec" json:"spec"`
}

type nodePoolDoc struct {
	APIVersion string       `yaml:"apiVersion" json:"apiVersion"`
	Kind       string       `yaml:"kind" json:"kind"`
	Metadata   objectMeta   `yaml:"metadata" json:"metadata"`
	Spec       NodePoolSpec `yaml:"spec" json:"spec"`
}

// yamlToJSON decodes YAML generically (as Terraform's yamldecode does: no target type) and
// re-encodes it as JSON.
func yamlToJSON(t testing.TB, doc string) []byte {
	t.Helper()
	var v any
	if err := yaml.Unmarshal([]byte(doc), &v); err != nil {
		t.Fatalf("yaml: %v", err)
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("json: %v", err)
	}
	return b
}

func TestRoundTrip(t *testing.T) {
	t.Run("EC2NodeClass", func(t *testing.T) {
		for _, nc := range []EC2NodeClass{minimalEC2NodeClass(), maximalEC2NodeClass()} {
			out := mustRenderEC2NodeClass(t, nc)
			want := ec2NodeClassDoc{EC2NodeClassAPIVersion, EC2NodeClassKind, objectMeta{nc.Name, nc.Labels, nc.Annotations}, nc.Spec}
			var viaYAML, viaJSON ec2NodeClassDoc
			if err := yaml.Unmarshal([]byte(out), &viaYAML); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(viaYAML, want) {
				t.Errorf("%s: YAML round trip:\n got %+v\nwant %+v", nc.Name, viaYAML, want)
			}
			if err := json.Unmarshal(yamlToJSON(t, out), &viaJSON); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(viaJSON, want) {
				t.Errorf("%s: YAML->JSON round trip:\n got %+v\nwant %+v", nc.Name, viaJSON, want)
			}
		}
	})
	t.Run("NodePool", func(t *testing.T) {
		for _, np := range []NodePool{maximalNodePool(), staticNodePool()} {
			out := mustRenderNodePool(t, np)
			want := nodePoolDoc{NodePoolAPIVersion, NodePoolKind, objectMeta{np.Name, np.Labels, np.Annotations}, np.Spec}
			if want.Spec.Template.Spec.NodeClassRef.Group == "" {
				want.Spec.Template.Spec.NodeClassRef.Group = DefaultNodeClassGroup
				want.Spec.Template.Spec.NodeClassRef.Kind = DefaultNodeClassKind
			}
			if want.Spec.Template.Spec.Requirements == nil {
				want.Spec.Template.Spec.Requirements = []NodeSelectorRequirement{}
			}
			var viaYAML, viaJSON nodePoolDoc
			if err := yaml.Unmarshal([]byte(out), &viaYAML); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(viaYAML, want) {
				t.Errorf("%s: YAML round trip:\n got %+v\nwant %+v", np.Name, viaYAML, want)
			}
			if err := json.Unmarshal(yamlToJSON(t, out), &viaJSON); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(viaJSON, want) {
				t.Errorf("%s: YAML->JSON round trip:\n got %+v\nwant %+v", np.Name, viaJSON, want)
			}
		}
	})
	t.Run("generic decode keeps strings as strings", func(t *testing.T) {
		var v map[string]any
		if err := yaml.Unmarshal([]byte(mustRenderNodePool(t, maximalNodePool())), &v); err != nil {
			t.Fatal(err)
		}
		limits := v["spec"].(map[string]any)["limits"].(map[string]any)
		for k, want := range maximalNodePool().Spec.Limits {
			if limits[k] != want {
				t.Errorf("limits[%q] = %#v, want string %q", k, limits[k], want)
			}
		}
		labels := v["spec"].(map[string]any)["template"].(map[string]any)["metadata"].(map[string]any)["labels"].(map[string]any)
		for k, want := range maximalNodePool().Spec.Template.Metadata.Labels {
			if labels[k] != want {
				t.Errorf("labels[%q] = %#v, want string %q", k, labels[k], want)
			}
		}
	})
}

// TestTagsAgree checks that every field's JSON and YAML names agree.
func TestTagsAgree(t *testing.T) {
	seen := map[reflect.Type]bool{}
	var walk func(reflect.Type)
	walk = func(rt reflect.Type) {
		for rt.Kind() == reflect.Pointer || rt.Kind() == reflect.Slice || rt.Kind() == reflect.Map {
			rt = rt.Elem()
		}
		if rt.Kind() != reflect.Struct || seen[rt] {
			return
		}
		seen[rt] = true
		for i := range rt.NumField() {
			f := rt.Field(i)
			yn, yopts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
			jn, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if yn == "" && yopts == "inline" && jn == "-" { // an inline map (kubelet's free-form fields): YAML only
				continue
			}
			if yn != jn {
				t.Errorf("%s.%s: yaml name %q, json name %q", rt.Name(), f.Name, yn, jn)
			}
			walk(f.Type)
		}
	}
	walk(reflect.TypeFor[EC2NodeClassSpec]())
	walk(reflect.TypeFor[NodePoolSpec]())
	if len(seen) < 15 {
		t.Errorf("walked only %d struct types", len(seen))
	}
}

func TestRenderErrors(t *testing.T) {
	tests := []struct {
		name    string
		render  func() (string, error)
		wantErr string
		is      error
	}{
		{"EC2NodeClass without name", func() (string, error) {
			nc := minimalEC2NodeClass()
			nc.Name = ""
			return RenderEC2NodeClass(nc)
		}, "metadata.name must not be empty", nil},
		{"NodePool without name", func() (string, error) {
			np := minimalNodePool()
			np.Name = ""
			return RenderNodePool(np)
		}, "metadata.name must not be empty", nil},
		{"invalid UTF-8 tag value", func() (string, error) {
			nc := minimalEC2NodeClass()
			nc.Spec.Tags = map[string]string{"k": "\xff"}
			return RenderEC2NodeClass(nc)
		}, `spec.tags["k"]`, errInvalidUTF8},
		{"invalid UTF-8 label key", func() (string, error) {
			np := minimalNodePool()
			np.Spec.Template.Metadata.Labels = map[string]string{"\xc3": "v"}
			return RenderNodePool(np)
		}, "spec.template.metadata.labels key", errInvalidUTF8},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, err := tc.render()
			if err == nil {
				t.Fatalf("no error; output:\n%s", out)
			}
			if !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("error %q does not contain %q", err, tc.wantErr)
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("error %v is not %v", err, tc.is)
			}
		})
	}
}

func TestRenderQuoting(t *testing.T) {
	// Every string that a YAML 1.1 or 1.2 reader could take for something else is quoted, and
	// reads back as the same string.
	values := []string{
		"1000", "1.5", "1e3", "0x1F", "0o17", "1_000", "-1", ".inf", ".NaN",
		"true", "False", "yes", "No", "on", "OFF", "y", "n", "~", "null", "", " ",
		"2001-12-14", "12:30", "1:20:30", "@x", "`x", "*", "&a", "!tag", "%x", "- x", "? x",
		"a: b", "#c", "a #c", "[x]", "{x}", "'", "\"", "\t", "line1\nline2", "trailing\n", " lead", "trail ",
		"\u2028", "\ufeff", "a\r\nb", "\x00", "\u0085", "\x7f",
		"<<", "=", "\n", "\n\n", "\na", "\t\n", " \n", "a\n\n",
	}
	labels := map[string]string{}
	for i, v := range values {
		labels["k"+strings.Repeat("x", i)] = v
	}
	np := minimalNodePool()
	np.Spec.Template.Metadata.Annotations = labels
	np.Spec.Limits = map[string]string{}
	for _, v := range values {
		np.Spec.Limits[v] = v // as keys too
	}
	out := mustRenderNodePool(t, np)
	// The second rendering takes every string's style from what the first one kept.
	if again := mustRenderNodePool(t, np); again != out {
		t.Errorf("a second rendering differs:\n%s\nfirst:\n%s", again, out)
	}
	var doc map[string]any
	if err := yaml.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("rendered YAML does not parse: %v\n%s", err, out)
	}
	spec := doc["spec"].(map[string]any)
	gotAnn := spec["template"].(map[string]any)["metadata"].(map[string]any)["annotations"].(map[string]any)
	for k, want := range labels {
		if got, ok := gotAnn[k].(string); !ok || got != want {
			t.Errorf("annotation %q: got %#v, want %q", k, gotAnn[k], want)
		}
	}
	gotLimits := spec["limits"].(map[string]any)
	if len(gotLimits) != len(values) {
		t.Errorf("limits: %d keys back, want %d (non-string keys collapse?)", len(gotLimits), len(values))
	}
	for _, v := range values {
		if got, ok := gotLimits[v].(string); !ok || got != v {
			t.Errorf("limits key %q: got %#v", v, gotLimits[v])
		}
	}
	if t.Failed() {
		t.Logf("rendered:\n%s", out)
	}
}
