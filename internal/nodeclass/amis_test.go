package nodeclass

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nodeplane/terraform-provider-karpenter/internal/discovery"
	"github.com/nodeplane/terraform-provider-karpenter/internal/requirements"
)

// fakeImages answers like EC2 and SSM: images match a query by id, owner, name glob and tags.
type fakeImages struct {
	images  []discovery.Image
	tags    map[string]map[string]string // image id -> tags
	params  map[string]string
	denied  bool
	queries []discovery.ImageQuery
}

func (f *fakeImages) GetParameter(_ context.Context, name string) (string, error) {
	if f.denied {
		return "", fmt.Errorf("reading SSM parameter %s: AccessDeniedException", name)
	}
	v, ok := f.params[name]
	if !ok {
		return "", fmt.Errorf("%s: %w", name, discovery.ErrParameterNotFound)
	}
	return v, nil
}

func (f *fakeImages) FindImages(_ context.Context, q discovery.ImageQuery) ([]discovery.Image, error) {
	f.queries = append(f.queries, q)
	var out []discovery.Image
	for _, img := range f.images {
		if len(q.IDs) > 0 && !slices.Contains(q.IDs, img.ID) {
			continue
		}
		self := slices.Contains(q.Owners, "self") && img.OwnerID == "111122223333"
		if len(q.Owners) > 0 && !slices.Contains(q.Owners, img.OwnerID) && !self {
			continue
		}
		ok := true
		for _, fl := range q.Filters {
			switch {
			case fl.Name == "name":
				ok = ok && globMatch(fl.Values[0], img.Name)
			case fl.Name == "tag-key":
				_, has := f.tags[img.ID][fl.Values[0]]
				ok = ok && has
			case strings.HasPrefix(fl.Name, "tag:"):
				ok = ok && f.tags[img.ID][strings.TrimPrefix(fl.Name, "tag:")] == fl.Values[0]
			}
		}
		if ok {
			out = append(out, img)
		}
	}
	return out, nil
}

// globMatch supports a trailing '*', enough for these tests.
func globMatch(pattern, s string) bool {
	if p, ok := strings.CutSuffix(pattern, "*"); ok {
		return strings.HasPrefix(s, p)
	}
	return pattern == s
}

var amiNow = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

func img(id, name, arch, created string) discovery.Image {
	return discovery.Image{ID: id, Name: name, OwnerID: "111122223333", Architecture: arch, CreationDate: created}
}

func TestResolveAMIsNameNewestPerArchitecture(t *testing.T) {
	api := &fakeImages{images: []discovery.Image{
		img("ami-old", "team-1", "x86_64", "2026-01-01T00:00:00.000Z"),
		img("ami-new", "team-2", "x86_64", "2026-06-01T00:00:00.000Z"),
		img("ami-arm", "team-3", "arm64", "2026-03-01T00:00:00.000Z"),
		img("ami-mac", "team-4", "x86_64_mac", "2026-09-01T00:00:00.000Z"), // Karpenter skips it
		img("ami-dep", "team-5", "x86_64", "2026-10-01T00:00:00.000Z"),
		img("ami-other", "other-1", "x86_64", "2026-11-01T00:00:00.000Z"),
	}}
	api.images[4].DeprecationTime = "2026-11-01T00:00:00.000Z" // newest, but deprecated: ranked last
	res, f, err := ResolveAMIs(context.Background(), api, []AMITerm{{Name: "team-*"}}, "", amiNow)
	if err != nil || len(f.Errors)+len(f.Warnings) > 0 {
		t.Fatalf("err %v findings %+v", err, f)
	}
	if got := res.IDs(); !slices.Equal(got, []string{"ami-new", "ami-arm"}) {
		t.Fatalf("amis %v, want the newest non-deprecated x86_64 first, then the arm64 one", got)
	}
	if q := api.queries[0]; !slices.Equal(q.Owners, []string{"self", "amazon"}) {
		t.Fatalf("a name term without owner asks owners %v, want Karpenter's self, amazon", q.Owners)
	}
	if r := res.AMIs[1].Requirements(); !slices.Equal(r, []string{"kubernetes.io/arch In [arm64]"}) {
		t.Fatalf("requirements %v", r)
	}
}

func TestResolveAMIsDeprecatedOnlyStillResolves(t *testing.T) {
	api := &fakeImages{images: []discovery.Image{img("ami-a", "x-1", "x86_64", "2026-01-01T00:00:00Z"), img("ami-b", "x-2", "x86_64", "2026-02-01T00:00:00Z")}}
	for i := range api.images {
		api.images[i].DeprecationTime = "2026-05-01T00:00:00Z"
	}
	res, _, err := ResolveAMIs(context.Background(), api, []AMITerm{{Name: "x-*"}}, "", amiNow)
	if err != nil || len(res.AMIs) != 1 || res.AMIs[0].ID != "ami-b" || !res.AMIs[0].Deprecated {
		t.Fatalf("got %+v, %v; want the newer deprecated image, marked deprecated", res.AMIs, err)
	}
}

func TestResolveAMIsSameDateTieBreaksOnName(t *testing.T) {
	api := &fakeImages{images: []discovery.Image{img("ami-1", "b", "x86_64", "2026-01-01T00:00:00Z"), img("ami-2", "c", "x86_64", "2026-01-01T00:00:00Z"), img("ami-3", "a", "x86_64", "2026-01-01T00:00:00Z")}}
	res, _, _ := ResolveAMIs(context.Background(), api, []AMITerm{{Tags: map[string]string{}}, {ID: "ami-1"}, {ID: "ami-2"}, {ID: "ami-3"}}, "", amiNow)
	if got := res.IDs(); !slices.Equal(got, []string{"ami-2"}) {
		t.Fatalf("amis %v, want ami-2 (greatest name at equal creation date)", got)
	}
}

func TestResolveAMIsTagsTerm(t *testing.T) {
	api := &fakeImages{images: []discovery.Image{img("ami-a", "a", "arm64", "2026-01-01T00:00:00Z"), img("ami-b", "b", "arm64", "2026-02-01T00:00:00Z")},
		tags: map[string]map[string]string{"ami-a": {"team": "ml", "golden": "yes"}, "ami-b": {"team": "web"}}}
	res, f, err := ResolveAMIs(context.Background(), api, []AMITerm{{Tags: map[string]string{"team": "ml", "golden": "*"}}}, "", amiNow)
	if err != nil || len(f.Errors) > 0 || !slices.Equal(res.IDs(), []string{"ami-a"}) {
		t.Fatalf("got %v %+v %v", res.IDs(), f, err)
	}
	q := api.queries[0]
	if len(q.Owners) != 0 || q.Filters.Key() != (discovery.FilterSet{{Name: "tag-key", Values: []string{"golden"}}, {Name: "tag:team", Values: []string{"ml"}}}).Key() {
		t.Fatalf("query %+v: want tag-key for '*', tag:k=v otherwise, no owner", q)
	}
}

func TestResolveAMIsSSMParameter(t *testing.T) {
	api := &fakeImages{images: []discovery.Image{img("ami-ssm", "ssm", "x86_64", "2026-01-01T00:00:00Z")},
		params: map[string]string{"/team/ami": "ami-ssm", "/team/bad": "not-an-ami", "/team/gone": "ami-gone"}}
	res, f, err := ResolveAMIs(context.Background(), api, []AMITerm{{SSMParameter: "/team/ami"}}, "", amiNow)
	if err != nil || len(f.Errors) > 0 || !slices.Equal(res.IDs(), []string{"ami-ssm"}) {
		t.Fatalf("got %v %+v %v", res.IDs(), f, err)
	}
	for _, c := range []struct {
		terms []AMITerm
		path  string
		want  string
	}{
		{[]AMITerm{{SSMParameter: "/team/missing"}}, "ami_selector_terms[0].ssm_parameter", "does not exist"},
		{[]AMITerm{{ID: "ami-ssm"}, {SSMParameter: "/team/bad"}}, "ami_selector_terms[1].ssm_parameter", "not an AMI id"},
		{[]AMITerm{{SSMParameter: "/team/gone"}}, "ami_selector_terms[0]", "names image ami-gone"},
		{[]AMITerm{{ID: "ami-nope"}}, "ami_selector_terms[0]", "image ami-nope does not exist"},
		{[]AMITerm{{Name: "nothing-*"}}, "ami_selector_terms[0]", "no available image matched name=nothing-*, owners self, amazon"},
	} {
		_, f, err := ResolveAMIs(context.Background(), api, c.terms, "", amiNow)
		if err != nil || len(f.Errors) != 1 || f.Errors[0].Path.String() != c.path || !strings.Contains(f.Errors[0].Message, c.want) {
			t.Errorf("%+v: got %+v %v, want one error on %s containing %q", c.terms, f, err, c.path, c.want)
		}
	}
	// A term that finds nothing beside one that does is a warning: Karpenter uses the others.
	_, f, _ = ResolveAMIs(context.Background(), api, []AMITerm{{ID: "ami-ssm"}, {Name: "nothing-*"}}, "", amiNow)
	if len(f.Errors) != 0 || len(f.Warnings) != 1 || f.Warnings[0].Path.String() != "ami_selector_terms[1]" {
		t.Fatalf("findings %+v, want one warning on the empty term", f)
	}
}

func TestResolveAMIsAlias(t *testing.T) {
	params, err := AliasParameters("al2023@latest", "1.33")
	if err != nil {
		t.Fatal(err)
	}
	api := &fakeImages{params: map[string]string{}}
	for i, p := range params {
		if strings.Contains(p.Name, "/neuron/") { // not published in this fake region
			continue
		}
		id := fmt.Sprintf("ami-%02d", i)
		api.params[p.Name] = id
		arch := map[string]string{"amd64": "x86_64", "arm64": "arm64"}[p.Architecture]
		api.images = append(api.images, img(id, p.Name, arch, "2026-0"+fmt.Sprint(i+1)+"-01T00:00:00Z"))
	}
	res, f, err := ResolveAMIs(context.Background(), api, []AMITerm{{Alias: "al2023@latest"}}, "1.33", amiNow)
	if err != nil || len(f.Errors) > 0 || res.Unresolved != "" {
		t.Fatalf("err %v findings %+v unresolved %q", err, f, res.Unresolved)
	}
	// x86_64 standard + nvidia, arm64 standard + nvidia: four requirement sets.
	if len(res.AMIs) != 4 {
		t.Fatalf("amis %+v, want 4", res.AMIs)
	}
	labels := func(arch string, extra ...string) map[string]string {
		l := map[string]string{requirements.LabelArch: arch}
		for _, e := range extra {
			l[e] = "1"
		}
		return l
	}
	pick := func(l map[string]string) string {
		for _, a := range res.AMIs {
			if a.Serves(l) {
				return a.Name
			}
		}
		return ""
	}
	if got := pick(labels("arm64", requirements.LabelInstanceGPUCount)); !strings.Contains(got, "arm64/nvidia") {
		t.Errorf("arm64 GPU type gets %q", got)
	}
	if got := pick(labels("amd64")); !strings.Contains(got, "x86_64/standard") {
		t.Errorf("plain amd64 type gets %q", got)
	}
	if got := pick(labels("amd64", requirements.LabelInstanceAcceleratorCount)); got != "" {
		t.Errorf("an Inferentia type gets %q, want none (no neuron image published here)", got)
	}

	for _, c := range []struct {
		version string
		api     *fakeImages
		want    string
	}{
		{"", api, "set kubernetes_version"},
		{"1.33", &fakeImages{}, "none of its"},
		{"1.33", &fakeImages{denied: true}, "AccessDenied"},
	} {
		res, f, err := ResolveAMIs(context.Background(), c.api, []AMITerm{{Alias: "al2023@latest"}}, c.version, amiNow)
		if err != nil || len(f.Errors) > 0 || len(res.AMIs) > 0 || !strings.Contains(res.Unresolved, c.want) {
			t.Errorf("version %q: got %+v %+v %v, want unresolved %q", c.version, res, f, err, c.want)
		}
	}
	_, f, err = ResolveAMIs(context.Background(), api, []AMITerm{{Alias: "al2@latest"}}, "1.33", amiNow)
	if err != nil || len(f.Errors) != 1 || f.Errors[0].Path.String() != "ami_selector_terms[0].alias" {
		t.Fatalf("al2 on 1.33: %+v %v, want an error on the alias", f, err)
	}
}
