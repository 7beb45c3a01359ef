// Package kubetest reaches the local Kubernetes API server that `make k8s-up` starts, for the
// tests that compare with it or compose against it: the kubeconfig it writes, a client that
// trusts its CA and sends its token, and a check that the server is ready with Karpenter's CRDs.
// It imports neither Terraform nor the AWS SDK, so the pure packages' tests can use it.
package kubetest

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"

	"sigs.k8s.io/yaml"
)

// Environment the test runs get from `scripts/k8s.sh env` (make testacc evaluates it).
const (
	EnvKubeconfig            = "KARPENTER_TEST_KUBECONFIG"
	EnvKubernetesProviderDir = "KARPENTER_TEST_KUBERNETES_PROVIDER_DIR"
)

// Fix is what to do when the API server is missing.
const Fix = "start the local API server with `make k8s-up` and export what `scripts/k8s.sh env` prints (make testacc does both)"

// API is one API server reached with a bearer token.
type API struct {
	Kubeconfig string
	Server     string
	// CAPEM is the PEM CA bundle of the server (from the kubeconfig; nil for New).
	CAPEM  []byte
	token  string
	client *http.Client
}

// Token is the bearer token the API uses.
func (a *API) Token() string { return a.token }

// New is an API for server with token over client (tests with their own server).
func New(server, token string, client *http.Client) *API {
	return &API{Server: server, token: token, client: client}
}

// FromEnv loads the API server EnvKubeconfig names and checks it is ready with Karpenter's CRDs.
func FromEnv() (*API, error) {
	path := os.Getenv(EnvKubeconfig)
	if path == "" {
		return nil, fmt.Errorf("%s is not set: %s", EnvKubeconfig, Fix)
	}
	a, err := Load(path)
	if err != nil {
		return nil, err
	}
	return a, a.Ready()
}

// Load reads the server, CA and token of the kubeconfig's current context.
func Load(path string) (*API, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w: %s", EnvKubeconfig, err, Fix)
	}
	var cfg struct {
		CurrentContext string `json:"current-context"`
		Contexts       []struct {
			Name    string `json:"name"`
			Context struct {
				Cluster string `json:"cluster"`
				User    string `json:"user"`
			} `json:"context"`
		} `json:"contexts"`
		Clusters []struct {
			Name    string `json:"name"`
			Cluster struct {
				Server string `json:"server"`
				CA     []byte `json:"certificate-authority-data"`
			} `json:"cluster"`
		} `json:"clusters"`
		Users []struct {
			Name string `json:"name"`
			User struct {
				Token string `json:"token"`
			} `json:"user"`
		} `json:"users"`
	}
	if err := yaml.Unmarshal(raw, &cfg); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	a := &API{Kubeconfig: path}
	pool := x509.NewCertPool()
	for _, c := range cfg.Contexts {
		if c.Name != cfg.CurrentContext {
			continue
		}
		for _, cl := range cfg.Clusters {
			if cl.Name == c.Context.Cluster {
				a.Server = cl.Cluster.Server
				a.CAPEM = cl.Cluster.CA
				pool.AppendCertsFromPEM(cl.Cluster.CA)
			}
		}
		for _, u := range cfg.Users {
			if u.Name == c.Context.User {
				a.token = u.User.Token
			}
		}
	}
	if a.Server == "" || a.token == "" {
		return nil, fmt.Errorf("%s: no server and token in its current context %q", path, cfg.CurrentContext)
	}
	a.client = &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}}
	return a, nil
}

// Ready fails unless the server answers /readyz and has both Karpenter CRDs.
func (a *API) Ready() error {
	for _, c := range []struct{ path, what string }{
		{"/readyz", "no ready Kubernetes API server"},
		{"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/ec2nodeclasses.karpenter.k8s.aws", "no EC2NodeClass CRD"},
		{"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/nodepools.karpenter.sh", "no NodePool CRD"},
	} {
		code, body, err := a.Do(http.MethodGet, c.path, "", nil)
		if err == nil && code != http.StatusOK {
			err = fmt.Errorf("GET %s: %d %s", c.path, code, bytes.TrimSpace(body))
		}
		if err != nil {
			return fmt.Errorf("%s at %s (%w): %s", c.what, a.Server, err, Fix)
		}
	}
	return nil
}

// Do sends one request and returns the status code and body.
func (a *API) Do(method, path, contentType string, body []byte) (int, []byte, error) {
	req, err := http.NewRequest(method, a.Server+path, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+a.token)
	req.Header.Set("Accept", "application/json")
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := a.client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, err
}

// Judged is a manifest with the plan-time validator's verdict on it.
type Judged struct {
	Doc        string
	Accepted   bool
	Objections []string // the validator's violations, "field: message"
	// Fields are the fields the validator refused, in the notation Compare's normalize writes
	// (the API server's causes go through it); nil when the comparison is of verdicts only.
	Fields []string
}

// Verdict is the API server's answer to a dry run.
type Verdict struct {
	Accepted bool
	Causes   []string // "field: message"
	Fields   []string // the causes' fields; for a strict-decoding refusal, the unknown fields
}

// unknownFieldRE finds the fields of a strict-decoding refusal, which has no causes.
var unknownFieldRE = regexp.MustCompile(`unknown field "([^"]+)"`)

// DryRun creates doc (an EC2NodeClass, NodePool or NodeOverlay in YAML, of any group: the differential copies
// included; or an EKS Auto Mode NodeClass) on the API server with dryRun=All and strict field validation, kubectl's default:
// 201 (or 409 AlreadyExists, which the API server answers only after validating) is an
// acceptance, 422 (Invalid) or 400 (strict decoding: an unknown or duplicate field) a refusal
// with its causes; anything else is an error.
func (a *API) DryRun(doc string) (Verdict, error) {
	body, err := yaml.YAMLToJSON([]byte(doc))
	if err != nil {
		return Verdict{}, fmt.Errorf("YAML to JSON: %w", err)
	}
	var head struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
	}
	if err := json.Unmarshal(body, &head); err != nil {
		return Verdict{}, err
	}
	resource := map[string]string{"EC2NodeClass": "ec2nodeclasses", "NodePool": "nodepools", "NodeOverlay": "nodeoverlays",
		"NodeClass": "nodeclasses"}[head.Kind]
	if resource == "" {
		return Verdict{}, fmt.Errorf("kind %q is neither a Karpenter kind nor the EKS Auto Mode NodeClass", head.Kind)
	}
	code, out, err := a.Do(http.MethodPost, fmt.Sprintf("/apis/%s/%s?dryRun=All&fieldValidation=Strict", head.APIVersion, resource),
		"application/json", body)
	if err != nil {
		return Verdict{}, fmt.Errorf("dry run: %w", err)
	}
	switch {
	case code == http.StatusCreated || code == http.StatusOK:
		return Verdict{Accepted: true}, nil
	case code == http.StatusConflict && strings.Contains(string(out), `"reason":"AlreadyExists"`):
		// The registry checks for an existing object after validation and admission: an object of
		// that name (make demo's, say) means the document passed them.
		return Verdict{Accepted: true}, nil
	case code == http.StatusUnprocessableEntity || code == http.StatusBadRequest:
		return refusal(out), nil
	}
	return Verdict{}, fmt.Errorf("dry run answered %d: %s", code, out)
}

// refusal reads a Status answer's causes and fields.
func refusal(out []byte) Verdict {
	var status struct {
		Message string `json:"message"`
		Details struct {
			Causes []struct {
				Field   string `json:"field"`
				Message string `json:"message"`
			} `json:"causes"`
		} `json:"details"`
	}
	_ = json.Unmarshal(out, &status)
	var v Verdict
	if len(status.Details.Causes) == 0 {
		v.Causes = []string{status.Message}
		for _, m := range unknownFieldRE.FindAllStringSubmatch(status.Message, -1) {
			v.Fields = append(v.Fields, m[1])
		}
	}
	for _, c := range status.Details.Causes {
		v.Causes = append(v.Causes, c.Field+": "+c.Message)
		// The API server adds a cause without a field when other errors kept it from running the
		// CEL rules: a note on the answer, not a refused field.
		if c.Field != "<nil>" && c.Field != "" {
			v.Fields = append(v.Fields, c.Field)
		}
	}
	return v
}

// Compare sends every judged manifest to the API server and returns a one-line summary, and an
// error listing each manifest on which the API server's verdict differs from the validator's,
// or (for judged manifests carrying Fields) the refused fields differ, with what each side
// objected to. normalize maps an API server field onto the notation of Judged.Fields (nil:
// the API server's own).
func Compare(a *API, docs []Judged, normalize func(doc, field string) string) (string, error) {
	var disagreements []string
	accepted, fieldsCompared := 0, 0
	for i, d := range docs {
		v, err := a.DryRun(d.Doc)
		if err != nil {
			return "", fmt.Errorf("manifest %d: %w\n%s", i, err, d.Doc)
		}
		if d.Accepted {
			accepted++
		}
		switch {
		case v.Accepted != d.Accepted:
			disagreements = append(disagreements, fmt.Sprintf("manifest %d: plan-time verdict accepted=%v (%s), API server accepted=%v (%s)\n%s",
				i, d.Accepted, strings.Join(d.Objections, "; "), v.Accepted, strings.Join(v.Causes, "; "), d.Doc))
		case !v.Accepted && d.Fields != nil:
			fieldsCompared++
			theirs := fieldSet(v.Fields, func(f string) string {
				if normalize == nil {
					return f
				}
				return normalize(d.Doc, f)
			})
			if ours := fieldSet(d.Fields, nil); !slices.Equal(ours, theirs) {
				disagreements = append(disagreements, fmt.Sprintf("manifest %d: both refuse it, the plan-time validator at %v (%s), the API server at %v (%s)\n%s",
					i, ours, strings.Join(d.Objections, "; "), theirs, strings.Join(v.Causes, "; "), d.Doc))
			}
		}
	}
	summary := fmt.Sprintf("differential check: %d manifests (%d accepted, %d refused by the plan-time validator, the refused fields of %d compared), %d disagreements with %s",
		len(docs), accepted, len(docs)-accepted, fieldsCompared, len(disagreements), a.Server)
	if len(disagreements) > 0 {
		return summary, fmt.Errorf("%s:\n%s", summary, strings.Join(disagreements, "\n\n"))
	}
	return summary, nil
}

// fieldSet is the sorted, distinct fields, each through f when set.
func fieldSet(fields []string, f func(string) string) []string {
	out := make([]string, 0, len(fields))
	for _, x := range fields {
		if f != nil {
			x = f(x)
		}
		out = append(out, x)
	}
	slices.Sort(out)
	return slices.Compact(out)
}
