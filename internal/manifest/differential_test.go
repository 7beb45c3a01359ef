package manifest

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/nodeplane/terraform-provider-karpenter/internal/kubetest"
)

// The differential check: every manifest this package's tests render or judge is also sent to a
// real kube-apiserver with Karpenter's CRDs (make k8s-up) as a server-side dry run, and the
// plan-time verdict (Admit) must equal the API server's. It runs after the package's tests, in
// acceptance runs (TF_ACC set), where the API server is a requirement, not an option.

// minDifferentialCorpus is the fewest documents an unfiltered run must compare.
const minDifferentialCorpus = 80

var corpus struct {
	sync.Mutex
	docs []string
	seen map[string]bool
}

// recordManifest adds a rendered or judged document to the differential corpus.
func recordManifest(doc string) {
	corpus.Lock()
	defer corpus.Unlock()
	if corpus.seen == nil {
		corpus.seen = map[string]bool{}
	}
	if !corpus.seen[doc] {
		corpus.seen[doc] = true
		corpus.docs = append(corpus.docs, doc)
	}
}

// recordSeed records a fuzz target's document when the target runs its seed corpus as a test,
// not while fuzzing.
func recordSeed(doc string) {
	if f := flag.Lookup("test.fuzz"); f == nil || f.Value.String() == "" {
		recordManifest(doc)
	}
}

func TestMain(m *testing.M) {
	code := m.Run()
	if code == 0 && os.Getenv("TF_ACC") != "" {
		if err := differential(); err != nil {
			fmt.Fprintf(os.Stderr, "--- FAIL: differential check against the API server\n%v\n", err)
			code = 1
		}
	}
	os.Exit(code)
}

// differential compares Admit's verdict with the API server's on every recorded document.
func differential() error {
	api, err := kubetest.FromEnv()
	if err != nil {
		return err
	}
	corpus.Lock()
	docs := slices.Clone(corpus.docs)
	corpus.Unlock()
	filtered := flag.Lookup("test.run") != nil && flag.Lookup("test.run").Value.String() != ""
	if !filtered && len(docs) < minDifferentialCorpus {
		return fmt.Errorf("only %d manifests recorded; the check needs at least %d", len(docs), minDifferentialCorpus)
	}
	return compareVerdicts(docs, api)
}

// compareVerdicts sends each document to the API server and compares its verdict with Admit's;
// a disagreement names the fields each side objected to.
func compareVerdicts(docs []string, api *kubetest.API) error {
	var disagreements []string
	accepted, refused := 0, 0
	for i, doc := range docs {
		violations, err := Admit(doc)
		if err != nil {
			return fmt.Errorf("manifest %d: Admit: %v\n%s", i, err, doc)
		}
		server, err := dryRun(api, doc)
		if err != nil {
			return fmt.Errorf("manifest %d: %v\n%s", i, err, doc)
		}
		ours := len(violations) == 0
		if ours {
			accepted++
		} else {
			refused++
		}
		if ours != server.accepted {
			var fields []string
			for _, v := range violations {
				fields = append(fields, v.String())
			}
			disagreements = append(disagreements, fmt.Sprintf("manifest %d: plan-time verdict accepted=%v (%s), API server accepted=%v (%s)\n%s",
				i, ours, strings.Join(fields, "; "), server.accepted, strings.Join(server.causes, "; "), doc))
		}
	}
	fmt.Printf("differential check: %d manifests (%d accepted, %d refused by the plan-time validator), %d disagreements with %s\n",
		len(docs), accepted, refused, len(disagreements), api.Server)
	if len(disagreements) > 0 {
		return fmt.Errorf("%d disagreements:\n%s", len(disagreements), strings.Join(disagreements, "\n\n"))
	}
	return nil
}

type serverVerdict struct {
	accepted bool
	causes   []string // field: message of a refusal
}

// dryRun creates doc on the API server with dryRun=All and strict field validation (kubectl's
// default): 201 is an acceptance, 422 (Invalid) or 400 (strict decoding: an unknown or duplicate
// field) a refusal; anything else is a failure of the check itself.
func dryRun(api *kubetest.API, doc string) (serverVerdict, error) {
	body, err := yaml.YAMLToJSON([]byte(doc))
	if err != nil {
		return serverVerdict{}, fmt.Errorf("YAML to JSON: %w", err)
	}
	var head struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
	}
	if err := json.Unmarshal(body, &head); err != nil {
		return serverVerdict{}, err
	}
	resource := map[string]string{"EC2NodeClass": "ec2nodeclasses", "NodePool": "nodepools"}[head.Kind]
	if resource == "" {
		return serverVerdict{}, fmt.Errorf("kind %q is not a Karpenter kind", head.Kind)
	}
	code, out, err := api.Do(http.MethodPost, fmt.Sprintf("/apis/%s/%s?dryRun=All&fieldValidation=Strict", head.APIVersion, resource),
		"application/json", body)
	if err != nil {
		return serverVerdict{}, fmt.Errorf("dry run: %w", err)
	}
	switch code {
	case http.StatusCreated, http.StatusOK:
		return serverVerdict{accepted: true}, nil
	case http.StatusUnprocessableEntity, http.StatusBadRequest: // Invalid, or a strict-decoding refusal (unknown field)
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
		v := serverVerdict{}
		if len(status.Details.Causes) == 0 {
			v.causes = []string{status.Message}
		}
		for _, c := range status.Details.Causes {
			v.causes = append(v.causes, c.Field+": "+c.Message)
		}
		return v, nil
	}
	return serverVerdict{}, fmt.Errorf("dry run answered %d: %s", code, out)
}

// TestDifferentialCorpusRecords keeps the recording honest: a rendered document lands in the
// corpus once, however often it is rendered.
func TestDifferentialCorpusRecords(t *testing.T) {
	doc := mustRenderNodePool(t, minimalNodePool())
	_ = mustRenderNodePool(t, minimalNodePool())
	corpus.Lock()
	defer corpus.Unlock()
	n := 0
	for _, d := range corpus.docs {
		if d == doc {
			n++
		}
	}
	if n != 1 {
		t.Errorf("the minimal node pool is recorded %d times, want 1", n)
	}
}

// TestCompareVerdictsFindsDisagreements proves the comparison can fail: an API server that
// refuses what Admit accepts (and accepts what it refuses) is a disagreement naming the fields.
func TestCompareVerdictsFindsDisagreements(t *testing.T) {
	valid := mustRenderNodePool(t, minimalNodePool())
	np := minimalNodePool()
	np.Spec.Weight = new(int32(101))
	invalid := mustRenderNodePool(t, np)
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if r.URL.Query().Get("dryRun") != "All" || !strings.HasSuffix(r.URL.Path, "/apis/karpenter.sh/v1/nodepools") {
			http.Error(w, "unexpected request "+r.URL.String(), http.StatusNotFound)
			return
		}
		if strings.Contains(string(body), `"weight"`) {
			w.WriteHeader(http.StatusCreated)
			return
		}
		w.WriteHeader(http.StatusUnprocessableEntity)
		_, _ = io.WriteString(w, `{"kind":"Status","details":{"causes":[{"field":"spec.template","message":"refused by the fake"}]}}`)
	}))
	defer srv.Close()
	api := kubetest.New(srv.URL, "", srv.Client())
	err := compareVerdicts([]string{valid, invalid}, api)
	if err == nil || !strings.Contains(err.Error(), "2 disagreements") || !strings.Contains(err.Error(), "spec.template: refused by the fake") ||
		!strings.Contains(err.Error(), "spec.weight") {
		t.Fatalf("err = %v", err)
	}
}
