package launchplan

import (
	"strings"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/capacity"
	"github.com/nodeplane/terraform-provider-karpenter/internal/requirements"
)

func userDataFor(t *testing.T, family, user string, kubelet Kubelet) (string, Plan) {
	t.Helper()
	in := baseInput()
	in.Class.AMIFamily = family
	in.Class.UserData = user
	in.Class.Kubelet = kubelet
	in.Requirements = []requirements.Requirement{onlyTypes("m5.large")}
	plan := mustBuild(t, in)
	if len(plan.LaunchTemplates) != 1 {
		t.Fatalf("%d launch templates", len(plan.LaunchTemplates))
	}
	return plan.LaunchTemplates[0].UserData, plan
}

var fullKubelet = Kubelet{
	ClusterDNS:     []string{"10.100.0.10", "10.100.0.11"},
	KubeReserved:   map[string]string{"memory": "512Mi", "cpu": "100m"},
	SystemReserved: map[string]string{"cpu": "50m"},
	EvictionHard:   map[string]string{"nodefs.available": "10%", "memory.available": "100Mi"},
}

func TestUserData(t *testing.T) {
	tests := []struct {
		name    string
		family  string
		user    string
		kubelet Kubelet
		want    []string // in this order
		absent  []string
		exact   string
	}{
		{
			name: "AL2", family: capacity.FamilyAL2, kubelet: fullKubelet,
			want: []string{
				"MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"//\"\n\n--//\nContent-Type: text/x-shellscript; charset=\"us-ascii\"\n\n#!/bin/bash -xe\n",
				"/etc/eks/bootstrap.sh 'demo' --use-max-pods false --dns-cluster-ip '10.100.0.10' " +
					"--kubelet-extra-args '--node-labels=karpenter.sh/nodepool=general --max-pods=29 --kube-reserved=cpu=100m,memory=512Mi " +
					"--system-reserved=cpu=50m --eviction-hard=memory.available<100Mi,nodefs.available<10%'\n",
				"--//--\n",
			},
		},
		{
			name: "AL2 with user script first", family: capacity.FamilyAL2, user: "#!/bin/bash\necho hello",
			want: []string{"--//\nContent-Type: text/x-shellscript; charset=\"us-ascii\"\n\n#!/bin/bash\necho hello\n--//\n",
				"/etc/eks/bootstrap.sh 'demo' --use-max-pods false --kubelet-extra-args '--node-labels=karpenter.sh/nodepool=general --max-pods=29'"},
		},
		{
			name: "AL2023", family: capacity.FamilyAL2023, kubelet: fullKubelet,
			want: []string{
				"--//\nContent-Type: application/node.eks.aws\n\n",
				"apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  cluster:\n    name: \"demo\"\n  kubelet:\n    config:\n      maxPods: 29\n" +
					"      clusterDNS:\n      - \"10.100.0.10\"\n      - \"10.100.0.11\"\n" +
					"      evictionHard:\n        \"memory.available\": \"100Mi\"\n        \"nodefs.available\": \"10%\"\n" +
					"      kubeReserved:\n        \"cpu\": \"100m\"\n        \"memory\": \"512Mi\"\n" +
					"      systemReserved:\n        \"cpu\": \"50m\"\n" +
					"    flags:\n    - \"--node-labels=karpenter.sh/nodepool=general\"\n",
				"--//--\n",
			},
		},
		{
			name: "AL2023 keeps a user MIME document's parts", family: capacity.FamilyAL2023,
			user: "MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"BOUNDARY\"\n\n--BOUNDARY\nContent-Type: text/x-shellscript\n\n" +
				"echo one\n--BOUNDARY\nContent-Type: application/node.eks.aws\n\napiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\n--BOUNDARY--\n",
			want: []string{"--//\nContent-Type: text/x-shellscript\n\necho one\n",
				"--//\nContent-Type: application/node.eks.aws\n\napiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\n",
				"--//\nContent-Type: application/node.eks.aws\n\napiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n", "maxPods: 29"},
			absent: []string{"BOUNDARY"},
		},
		{
			name: "AL2023 user NodeConfig", family: capacity.FamilyAL2023,
			user: "apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  kubelet:\n    flags: [--v=2]\n",
			want: []string{"--//\nContent-Type: application/node.eks.aws\n\napiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  kubelet:\n    flags: [--v=2]\n--//\n",
				"maxPods: 29"},
		},
		{
			name: "Bottlerocket", family: capacity.FamilyBottlerocket, kubelet: fullKubelet,
			exact: "[settings.kubernetes]\ncluster-name = \"demo\"\nmax-pods = 29\ncluster-dns-ip = \"10.100.0.10\"\n\n" +
				"[settings.kubernetes.kube-reserved]\ncpu = \"100m\"\nmemory = \"512Mi\"\n\n" +
				"[settings.kubernetes.system-reserved]\ncpu = \"50m\"\n\n" +
				"[settings.kubernetes.eviction-hard]\n\"memory.available\" = \"100Mi\"\n\"nodefs.available\" = \"10%\"\n\n" +
				"[settings.kubernetes.node-labels]\n\"karpenter.sh/nodepool\" = \"general\"\n",
		},
		{
			name: "Bottlerocket merges a user settings.kubernetes section", family: capacity.FamilyBottlerocket,
			user: "[settings.host-containers.admin]\nenabled = true\n\n[settings.kubernetes]\nimage-gc-high-threshold-percent = 85\n\"max-pods\" = 5\n\n" +
				"[settings.kubernetes.node-labels]\nteam = \"a\"\n",
			exact: "[settings.host-containers.admin]\nenabled = true\n\n[settings.kubernetes]\nimage-gc-high-threshold-percent = 85\n" +
				"cluster-name = \"demo\"\nmax-pods = 29\n\n" +
				"[settings.kubernetes.node-labels]\nteam = \"a\"\n\"karpenter.sh/nodepool\" = \"general\"\n",
		},
		{
			name: "Windows", family: capacity.FamilyWindows2022, user: "<powershell>\nWrite-Host hi\n</powershell>", kubelet: Kubelet{ClusterDNS: []string{"10.100.0.10"}},
			exact: "<powershell>\nWrite-Host hi\n[string]$EKSBootstrapScriptFile = \"$env:ProgramFiles\\Amazon\\EKS\\Start-EKSBootstrap.ps1\"\n" +
				"& $EKSBootstrapScriptFile -EKSClusterName 'demo' -DNSClusterIP '10.100.0.10' " +
				"-KubeletExtraArgs '--max-pods=110 --node-labels=karpenter.sh/nodepool=general'\n</powershell>\n",
		},
		{
			name: "Custom passthrough", family: capacity.FamilyCustom, user: "#!/bin/bash\n/opt/bootstrap --pods 29\n",
			exact: "#!/bin/bash\n/opt/bootstrap --pods 29\n",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, _ := userDataFor(t, tc.family, tc.user, tc.kubelet)
			if tc.exact != "" && got != tc.exact {
				t.Fatalf("user data:\n%s\nwant:\n%s", got, tc.exact)
			}
			rest := got
			for _, w := range tc.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("user data:\n%s\nlacks (in order):\n%s", got, w)
				}
				rest = rest[i+len(w):]
			}
			for _, a := range tc.absent {
				if strings.Contains(got, a) {
					t.Errorf("user data contains %q:\n%s", a, got)
				}
			}
			again, _ := userDataFor(t, tc.family, tc.user, tc.kubelet)
			if again != got {
				t.Errorf("user data not deterministic")
			}
		})
	}
}

func TestUserDataWarnings(t *testing.T) {
	_, plan := userDataFor(t, capacity.FamilyCustom, "", Kubelet{})
	if !hasProblem(plan.Warnings, "", "Custom AMI family: the kubelet will not be told max pods") {
		t.Errorf("warnings = %v", plan.Warnings)
	}
	_, plan = userDataFor(t, capacity.FamilyBottlerocket, "[settings.kubernetes]\nmax-pods = 5\n", Kubelet{})
	if !hasProblem(plan.Warnings, "", "settings.kubernetes.max-pods", "replaces") {
		t.Errorf("warnings = %v", plan.Warnings)
	}
	_, plan = userDataFor(t, capacity.FamilyAL2023, "MIME-Version: 1.0\nContent-Type: multipart/mixed\n\nbody\n", Kubelet{})
	if !hasProblem(plan.Warnings, "", "MIME", "kept as one part") {
		t.Errorf("warnings = %v", plan.Warnings)
	}
}

func TestQuoting(t *testing.T) {
	if got := shellQuote("it's"); got != `'it'"'"'s'` {
		t.Errorf("shellQuote = %s", got)
	}
	if got := psQuote("it's"); got != `'it''s'` {
		t.Errorf("psQuote = %s", got)
	}
	if got := dquote("a\"b\\c\nd\x01"); got != `"a\"b\\c\nd\u0001"` {
		t.Errorf("dquote = %s", got)
	}
	if got := normalizeTOMLKey(` settings . "kubernetes" . 'node-labels' `); got != "settings.kubernetes.node-labels" {
		t.Errorf("normalizeTOMLKey = %q", got)
	}
}
