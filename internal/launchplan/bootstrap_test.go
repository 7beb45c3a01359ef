package launchplan

import (
	"io"
	"mime"
	"mime/multipart"
	"net/mail"
	"reflect"
	"strings"
	"testing"

	"github.com/pelletier/go-toml/v2"
	"gopkg.in/yaml.v3"

	"github.com/nodeplane/terraform-provider-karpenter/internal/capacity"
	"github.com/nodeplane/terraform-provider-karpenter/internal/nodeclass"
	"github.com/nodeplane/terraform-provider-karpenter/internal/requirements"
)

// bootstrapUserData is the user data of a one-template pool with the demo cluster facts.
func bootstrapUserData(t *testing.T, family string) string {
	t.Helper()
	in := baseInput()
	in.Class.AMIFamily = family
	in.Bootstrap = demoBootstrap
	in.Requirements = []requirements.Requirement{onlyTypes("m5.large")}
	plan := mustBuild(t, in)
	return plan.LaunchTemplates[0].UserData
}

// mimeParts parses a MIME multipart document into content type → bodies.
func mimeParts(t *testing.T, doc string) map[string][]string {
	t.Helper()
	msg, err := mail.ReadMessage(strings.NewReader(doc))
	if err != nil {
		t.Fatalf("not a MIME document: %v\n%s", err, doc)
	}
	mt, params, err := mime.ParseMediaType(msg.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/mixed" {
		t.Fatalf("content type %q: %v", mt, err)
	}
	out := map[string][]string{}
	r := multipart.NewReader(msg.Body, params["boundary"])
	for {
		p, err := r.NextPart()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(p)
		ct, _, _ := mime.ParseMediaType(p.Header.Get("Content-Type"))
		out[ct] = append(out[ct], string(body))
	}
}

// shellWords splits a command line with single-quoted words, as shellQuote writes them.
func shellWords(s string) []string {
	var words []string
	var cur strings.Builder
	in, has := false, false
	for _, r := range s {
		switch {
		case r == '\'':
			in, has = !in, true
		case (r == ' ' || r == '\n') && !in:
			if has || cur.Len() > 0 {
				words = append(words, cur.String())
			}
			cur.Reset()
			has = false
		default:
			cur.WriteRune(r)
		}
	}
	if has || cur.Len() > 0 {
		words = append(words, cur.String())
	}
	return words
}

// flagValues maps each "-flag value" pair of words after the command.
func flagValues(words []string) map[string]string {
	out := map[string]string{}
	for i := 0; i < len(words); i++ {
		if strings.HasPrefix(words[i], "-") && i+1 < len(words) {
			out[words[i]] = words[i+1]
			i++
		}
	}
	return out
}

func TestBootstrapAL2023NodeConfig(t *testing.T) {
	parts := mimeParts(t, bootstrapUserData(t, capacity.FamilyAL2023))
	if len(parts["application/node.eks.aws"]) != 1 {
		t.Fatalf("NodeConfig parts: %v", parts)
	}
	var nc struct {
		APIVersion string `yaml:"apiVersion"`
		Kind       string `yaml:"kind"`
		Spec       struct {
			Cluster struct {
				Name                 string `yaml:"name"`
				APIServerEndpoint    string `yaml:"apiServerEndpoint"`
				CertificateAuthority string `yaml:"certificateAuthority"`
				CIDR                 string `yaml:"cidr"`
			} `yaml:"cluster"`
			Kubelet struct {
				Config map[string]any `yaml:"config"`
				Flags  []string       `yaml:"flags"`
			} `yaml:"kubelet"`
		} `yaml:"spec"`
	}
	if err := yaml.Unmarshal([]byte(parts["application/node.eks.aws"][0]), &nc); err != nil {
		t.Fatal(err)
	}
	c := nc.Spec.Cluster
	if nc.APIVersion != "node.eks.aws/v1alpha1" || nc.Kind != "NodeConfig" || c.Name != "demo" || c.APIServerEndpoint != demoBootstrap.Endpoint ||
		c.CertificateAuthority != demoBootstrap.CABundle || c.CIDR != demoBootstrap.ServiceCIDR {
		t.Errorf("NodeConfig: %+v", nc)
	}
	if nc.Spec.Kubelet.Config["maxPods"] != 29 || !reflect.DeepEqual(nc.Spec.Kubelet.Flags, []string{"--node-labels=karpenter.sh/nodepool=general"}) {
		t.Errorf("kubelet: %+v", nc.Spec.Kubelet)
	}
}

func TestBootstrapAL2Flags(t *testing.T) {
	parts := mimeParts(t, bootstrapUserData(t, capacity.FamilyAL2))
	scripts := parts["text/x-shellscript"]
	if len(scripts) != 1 {
		t.Fatalf("shell parts: %v", parts)
	}
	var call []string
	for _, line := range strings.Split(scripts[0], "\n") {
		if strings.HasPrefix(line, "/etc/eks/bootstrap.sh ") {
			call = shellWords(line)
		}
	}
	if len(call) < 2 || call[1] != "demo" {
		t.Fatalf("bootstrap.sh call: %q", call)
	}
	got := flagValues(call[2:])
	want := map[string]string{"--use-max-pods": "false", "--apiserver-endpoint": demoBootstrap.Endpoint, "--b64-cluster-ca": demoBootstrap.CABundle,
		"--service-ipv4-cidr": demoBootstrap.ServiceCIDR, "--kubelet-extra-args": "--node-labels=karpenter.sh/nodepool=general --max-pods=29"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("bootstrap.sh flags:\n got %v\nwant %v", got, want)
	}
}

func TestBootstrapBottlerocketSettings(t *testing.T) {
	var doc struct {
		Settings struct {
			Kubernetes struct {
				ClusterName        string            `toml:"cluster-name"`
				APIServer          string            `toml:"api-server"`
				ClusterCertificate string            `toml:"cluster-certificate"`
				MaxPods            int               `toml:"max-pods"`
				NodeLabels         map[string]string `toml:"node-labels"`
			} `toml:"kubernetes"`
		} `toml:"settings"`
	}
	ud := bootstrapUserData(t, capacity.FamilyBottlerocket)
	if err := toml.Unmarshal([]byte(ud), &doc); err != nil {
		t.Fatalf("not TOML: %v\n%s", err, ud)
	}
	k := doc.Settings.Kubernetes
	if k.ClusterName != "demo" || k.APIServer != demoBootstrap.Endpoint || k.ClusterCertificate != demoBootstrap.CABundle || k.MaxPods != 29 ||
		k.NodeLabels["karpenter.sh/nodepool"] != "general" {
		t.Errorf("settings.kubernetes: %+v", k)
	}
}

func TestBootstrapWindowsArguments(t *testing.T) {
	ud := bootstrapUserData(t, capacity.FamilyWindows2022)
	var call []string
	for _, line := range strings.Split(ud, "\n") {
		if strings.HasPrefix(line, "& $EKSBootstrapScriptFile ") {
			call = shellWords(line)
		}
	}
	got := flagValues(call)
	want := map[string]string{"-EKSClusterName": "demo", "-APIServerEndpoint": demoBootstrap.Endpoint, "-Base64ClusterCA": demoBootstrap.CABundle,
		"-ServiceCIDR": demoBootstrap.ServiceCIDR, "-KubeletExtraArgs": "--max-pods=110 --node-labels=karpenter.sh/nodepool=general"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Start-EKSBootstrap.ps1 arguments:\n got %v\nwant %v", got, want)
	}
}

// A static pool's nodes are launched by the provider: without the cluster facts they could not
// join, so the plan fails naming what is missing; a Custom AMI bootstraps itself.
func TestBootstrapRequiredForStaticPools(t *testing.T) {
	two := 2
	for _, tc := range []struct {
		name      string
		family    string
		cluster   string
		bootstrap Bootstrap
		want      string // "" = no error
	}{
		{"all facts", capacity.FamilyAL2023, "demo", demoBootstrap, ""},
		{"no facts", capacity.FamilyAL2023, "demo", Bootstrap{}, "set the provider's cluster_endpoint, cluster_certificate_authority_data, cluster_service_cidr"},
		{"no cluster name", capacity.FamilyBottlerocket, "", demoBootstrap, "set the provider's cluster_name ("},
		{"CA missing", capacity.FamilyAL2, "demo", Bootstrap{Endpoint: demoBootstrap.Endpoint, ServiceCIDR: demoBootstrap.ServiceCIDR}, "set the provider's cluster_certificate_authority_data ("},
		{"Custom bootstraps itself", capacity.FamilyCustom, "demo", Bootstrap{}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := baseInput()
			in.Class.AMIFamily, in.ClusterName, in.Bootstrap, in.Replicas = tc.family, tc.cluster, tc.bootstrap, &two
			in.Class.AMIs = []nodeclass.AMI{amdImage, armImage}
			if tc.family == capacity.FamilyCustom {
				in.Class.UserData = "#!/bin/bash\n/opt/join\n"
			}
			in.Requirements = []requirements.Requirement{onlyTypes("m5.large")}
			_, errs := Build(in)
			switch {
			case tc.want == "" && len(errs) > 0:
				t.Errorf("errors: %v", errs)
			case tc.want != "" && (len(errs) != 1 || errs[0].Path.String() != "replicas" || !strings.Contains(errs[0].Message, tc.want)):
				t.Errorf("errors %v, want one on replicas containing %q", errs, tc.want)
			}
		})
	}
}
