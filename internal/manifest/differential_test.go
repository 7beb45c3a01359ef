package manifest

import (
	"errors"
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

// differential compares AdmitFor's verdict, and the fields it refuses, with the API server's on
// every recorded document, for every embedded Karpenter minor: each minor's CRDs are installed
// on the API server under a group of their own (cmd/k8s-crds -differential), where its
// documents are sent.
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
		return fmt.Errorf("only %d manifests recorded; the check needs at least %d per version", len(docs), minDifferentialCorpus)
	}
	var errs []error
	for _, v := range Versions() {
		judged, normalize, err := judgeFor(v, docs)
		if err != nil {
			return err
		}
		if !filtered && len(judged) < minDifferentialCorpus {
			return fmt.Errorf("Karpenter %s: only %d manifests judged; the check needs at least %d", v, len(judged), minDifferentialCorpus)
		}
		summary, err := kubetest.Compare(api, judged, normalize)
		fmt.Printf("Karpenter %s: %s\n", v, summary)
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// judge runs Admit (the default version) over each document, comparing verdicts only.
func judge(docs []string) ([]kubetest.Judged, error) {
	out := make([]kubetest.Judged, len(docs))
	for i, doc := range docs {
		violations, err := Admit(doc)
		if err != nil {
			return nil, fmt.Errorf("manifest %d: Admit: %w\n%s", i, err, doc)
		}
		out[i] = kubetest.Judged{Doc: doc, Accepted: len(violations) == 0}
		for _, v := range violations {
			out[i].Objections = append(out[i].Objections, v.String())
		}
	}
	return out, nil
}

// judgeFor runs AdmitFor(version) over each document and moves it to the version's differential
// group; normalize reads the API server's fields into Path notation with the version's CRD.
func judgeFor(version string, docs []string) ([]kubetest.Judged, func(doc, field string) string, error) {
	crds, err := CRDsFor(version)
	if err != nil {
		return nil, nil, err
	}
	kindOf := map[string]string{}
	out := make([]kubetest.Judged, len(docs))
	for i, doc := range docs {
		violations, err := AdmitFor(version, doc)
		if err != nil {
			return nil, nil, fmt.Errorf("manifest %d: AdmitFor(%s): %w\n%s", i, version, err, doc)
		}
		moved := InDifferentialGroup(doc, version)
		kindOf[moved] = map[bool]string{true: EC2NodeClassKind, false: NodePoolKind}[strings.Contains(doc, "\nkind: EC2NodeClass")]
		out[i] = kubetest.Judged{Doc: moved, Accepted: len(violations) == 0, Fields: []string{}}
		for _, v := range violations {
			out[i].Objections = append(out[i].Objections, v.String())
			out[i].Fields = append(out[i].Fields, v.Field.String())
		}
	}
	normalize := func(doc, field string) string { return crds[kindOf[doc]].ParseFieldPath(field).String() }
	return out, normalize, nil
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
	judged, err := judge([]string{valid, invalid})
	if err != nil {
		t.Fatal(err)
	}
	_, err = kubetest.Compare(api, judged, nil)
	if err == nil || !strings.Contains(err.Error(), "2 disagreements") || !strings.Contains(err.Error(), "spec.template: refused by the fake") ||
		!strings.Contains(err.Error(), "spec.weight") {
		t.Fatalf("err = %v", err)
	}
}
