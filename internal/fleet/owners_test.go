package fleet_test

import (
	"context"
	"errors"
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/fleet"
	"github.com/nodeplane/terraform-provider-karpenter/internal/launchplan"
)

// fakeListing answers Listing from memory: a listing carries every tag of scope and of tags
// (terminated instances included, as EC2 lists them for a while). It records the arguments.
type fakeListing struct {
	templates []fleet.LaunchTemplate
	instances []fleet.Instance
	err       error

	templateScopes []map[string]string
	instanceTags   []map[string]string
}

func (f *fakeListing) ListTemplates(_ context.Context, scope, tags map[string]string) ([]fleet.LaunchTemplate, error) {
	f.templateScopes = append(f.templateScopes, scope)
	if f.err != nil {
		return nil, f.err
	}
	var out []fleet.LaunchTemplate
	for _, lt := range f.templates {
		if carriesAll(lt.Tags, scope) && carriesAll(lt.Tags, tags) {
			out = append(out, lt)
		}
	}
	return out, nil
}

func (f *fakeListing) ReadTemplates(ctx context.Context, scope, tags map[string]string, _ map[string]fleet.LaunchTemplate) ([]fleet.LaunchTemplate, error) {
	return f.ListTemplates(ctx, scope, tags)
}

func (f *fakeListing) ReadInstances(_ context.Context, _, tags map[string]string) ([]fleet.Instance, error) {
	f.instanceTags = append(f.instanceTags, tags)
	var out []fleet.Instance
	for _, i := range f.instances {
		if carriesAll(i.Tags, tags) {
			out = append(out, i)
		}
	}
	return out, nil
}

var _ fleet.Listing = (*fakeListing)(nil)

// carriesAll reports whether have holds every tag of want (nil: no condition).
func carriesAll(have, want map[string]string) bool {
	for k, v := range want {
		if got, ok := have[k]; !ok || got != v {
			return false
		}
	}
	return true
}

// poolTemplate is a launch template of pool in cluster (no cluster tag when ""), of owner (no owner tag when "").
func poolTemplate(id, name, cluster, pool, owner string) fleet.LaunchTemplate {
	tags := fleet.PoolTags(cluster, pool)
	if owner != "" {
		tags[launchplan.TagOwner] = owner
	}
	return fleet.LaunchTemplate{ID: id, Name: name, Tags: tags}
}

func poolInstance(id, state, cluster, pool, owner string) fleet.Instance {
	return fleet.Instance{ID: id, State: state, Tags: map[string]string(fleet.OwnershipOf(cluster, pool, owner))}
}

func TestConflicts(t *testing.T) {
	listed := []fleet.LaunchTemplate{
		poolTemplate("lt-1", "c1/general/aaaa", "c1", "general", "o2"),
		poolTemplate("lt-2", "c1/general/bbbb", "c1", "general", "o1"),
		poolTemplate("lt-3", "c1/general/cccc", "c1", "general", "o2"),
		poolTemplate("lt-4", "c1/general/dddd", "c1", "general", ""),   // no owner: surfaces at apply
		poolTemplate("lt-5", "c1/other/eeee", "c1", "other", "o3"),     // another pool
		poolTemplate("lt-6", "c2/general/ffff", "c2", "general", "o4"), // another cluster
		poolTemplate("lt-7", "karpenter/general/g", "", "general", "o5"),
	}
	for _, tc := range []struct {
		name    string
		cluster string
		shared  bool
		// want: per finding, in order, substrings of its message.
		want [][]string
	}{
		{"cluster", "c1", true, [][]string{
			{"owner o1", "c1/general/bbbb (lt-2)", "in cluster c1", "terraform import <address> general/o1"},
			{"owner o2", "c1/general/aaaa (lt-1), c1/general/cccc (lt-3)", `import { id = "general/o2" }`},
		}},
		{"cluster, listed afresh", "c1", false, [][]string{{"owner o1"}, {"owner o2"}}},
		{"no cluster: templates tagged with a cluster are another cluster's", "", false, [][]string{
			{"owner o5", "karpenter/general/g (lt-7)", `"general" (no cluster)`},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeListing{templates: listed}
			got, err := fleet.Cluster{Name: tc.cluster, EC2: f}.Conflicts(t.Context(), "general", tc.shared)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("findings %+v, want %d", got, len(tc.want))
			}
			for i, want := range tc.want {
				if got[i].Path.String() != "name" || got[i].Summary != "Node pool name already taken" {
					t.Errorf("finding %d: %s %q", i, got[i].Path, got[i].Summary)
				}
				for _, s := range want {
					if !strings.Contains(got[i].Message, s) {
						t.Errorf("finding %d: %q does not contain %q", i, got[i].Message, s)
					}
				}
			}
			wantScope := map[string]string(nil)
			if tc.shared {
				wantScope = fleet.ReadScope(tc.cluster)
			}
			if len(f.templateScopes) != 1 || !maps.Equal(f.templateScopes[0], wantScope) || (wantScope == nil) != (f.templateScopes[0] == nil) {
				t.Errorf("listed with scopes %v, want one listing with %v", f.templateScopes, wantScope)
			}
		})
	}
}

func TestConflictsNone(t *testing.T) {
	f := &fakeListing{templates: []fleet.LaunchTemplate{poolTemplate("lt-4", "c1/general/dddd", "c1", "general", "")}}
	got, err := fleet.Cluster{Name: "c1", EC2: f}.Conflicts(t.Context(), "general", true)
	if err != nil || len(got) != 0 {
		t.Errorf("templates without an owner: %+v %v, want no finding", got, err)
	}
}

func TestConflictsListingError(t *testing.T) {
	cause := errors.New("UnauthorizedOperation")
	_, err := fleet.Cluster{Name: "c1", EC2: &fakeListing{err: cause}}.Conflicts(t.Context(), "general", true)
	var fe fleet.Error
	if !errors.As(err, &fe) || fe.Summary != "Cannot list the pool's launch templates" || !errors.Is(err, cause) {
		t.Errorf("err = %v, want a fleet.Error wrapping the cause", err)
	}
}

func TestImportTarget(t *testing.T) {
	twoOwners := []fleet.LaunchTemplate{
		poolTemplate("lt-1", "c1/general/aaaa", "c1", "general", "o1"),
		poolTemplate("lt-2", "c1/general/bbbb", "c1", "general", "o2"),
	}
	oneOwner := []fleet.LaunchTemplate{
		poolTemplate("lt-1", "c1/general/aaaa", "c1", "general", "o1"),
		poolTemplate("lt-3", "c1/general/cccc", "c1", "general", "o1"),
		poolTemplate("lt-4", "c1/general/dddd", "c1", "general", ""), // nobody's: not an owner
	}
	instances := []fleet.Instance{
		poolInstance("i-1", "running", "c1", "general", "o1"),
		poolInstance("i-2", "pending", "c1", "general", "o1"),
		poolInstance("i-3", "terminated", "c1", "general", "o1"),
		poolInstance("i-4", "running", "c1", "general", "o2"),
		poolInstance("i-5", "running", "c1", "other", "o1"),
	}
	for _, tc := range []struct {
		name      string
		id        string
		templates []fleet.LaunchTemplate
		want      fleet.Import // Owner "*": a fresh owner id
		wantErr   string       // the Error's Summary
		detail    string       // a substring of the error's Detail
		wantTags  map[string]string
	}{
		{name: "the one owner", id: "general", templates: oneOwner, want: fleet.Import{Pool: "general", Owner: "o1", Live: 2},
			wantTags: fleet.OwnershipOf("c1", "general", "o1")},
		{name: "an owner named", id: "general/o2", templates: twoOwners, want: fleet.Import{Pool: "general", Owner: "o2", Live: 1},
			wantTags: fleet.OwnershipOf("c1", "general", "o2")},
		{name: "owner absent", id: "general/o9", templates: twoOwners, wantErr: "Node pool not found", detail: `owner id "o9" (owners found: o1, o2)`},
		{name: "owner absent, nobody", id: "general/o9", templates: nil, wantErr: "Node pool not found", detail: "(owners found: none)"},
		{name: "several owners", id: "general", templates: twoOwners, wantErr: "Node pool held by several owners", detail: "owners o1, o2"},
		{name: "nobody", id: "general", templates: nil, want: fleet.Import{Pool: "general", Owner: "*"}},
		{name: "only templates without an owner", id: "general", templates: oneOwner[2:], want: fleet.Import{Pool: "general", Owner: "*"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeListing{templates: tc.templates, instances: instances}
			got, err := fleet.Cluster{Name: "c1", EC2: f}.ImportTarget(t.Context(), tc.id)
			if len(f.templateScopes) != 1 || f.templateScopes[0] != nil {
				t.Errorf("template listings with scopes %v, want one fresh listing (nil scope)", f.templateScopes)
			}
			if tc.wantErr != "" {
				var fe fleet.Error
				if !errors.As(err, &fe) || fe.Summary != tc.wantErr || !strings.Contains(fe.Detail, tc.detail) {
					t.Fatalf("err = %v, want %q with %q", err, tc.wantErr, tc.detail)
				}
				if got != (fleet.Import{}) || len(f.instanceTags) != 0 {
					t.Errorf("got %+v and %d instance listings on error", got, len(f.instanceTags))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tc.want.Owner == "*" {
				if !regexp.MustCompile(`^[0-9a-f]{16}$`).MatchString(got.Owner) {
					t.Errorf("owner id %q, want 16 hex characters", got.Owner)
				}
				if got.Warning == "" || !strings.Contains(got.Warning, `node pool "general" in cluster c1`) || got.Live != 0 || got.Pool != "general" {
					t.Errorf("got %+v, want a dynamic pool with a warning", got)
				}
				if len(f.instanceTags) != 0 {
					t.Errorf("instances listed for nobody's pool: %v", f.instanceTags)
				}
				return
			}
			if got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
			if len(f.instanceTags) != 1 || !maps.Equal(f.instanceTags[0], tc.wantTags) {
				t.Errorf("instances listed by %v, want the owner's tags %v", f.instanceTags, tc.wantTags)
			}
		})
	}
}

// Without a cluster name, another cluster's pool of the same name is nobody's here.
func TestImportTargetWithoutClusterIgnoresClusters(t *testing.T) {
	f := &fakeListing{templates: []fleet.LaunchTemplate{poolTemplate("lt-1", "c1/general/aaaa", "c1", "general", "o1")}}
	got, err := fleet.Cluster{EC2: f}.ImportTarget(t.Context(), "general")
	if err != nil || got.Owner == "o1" || got.Warning == "" || !strings.Contains(got.Warning, "(no cluster)") {
		t.Errorf("got %+v %v, want nobody's pool", got, err)
	}
	if _, err := (fleet.Cluster{EC2: f}).ImportTarget(t.Context(), "general/o1"); err == nil {
		t.Error("another cluster's owner was imported without a cluster name")
	}
}

func TestImportTargetListingError(t *testing.T) {
	cause := errors.New("throttled")
	_, err := fleet.Cluster{Name: "c1", EC2: &fakeListing{err: cause}}.ImportTarget(t.Context(), "general")
	var fe fleet.Error
	if !errors.As(err, &fe) || fe.Summary != "Cannot list the pool's launch templates" || !errors.Is(err, cause) {
		t.Errorf("err = %v", err)
	}
}

func TestReadTemplates(t *testing.T) {
	lt := func(id, name, fp string, v int64) fleet.LaunchTemplate {
		return fleet.LaunchTemplate{ID: id, Name: name, Fingerprint: fp, DefaultVersion: v, Tags: map[string]string{"k": name}}
	}
	for _, tc := range []struct {
		name            string
		recorded, owned []fleet.RecordedTemplate
		dynamic, adopt  bool
		want            []fleet.RecordedTemplate
		from            []int
	}{
		{
			name:     "static: deleted dropped, changed updated",
			recorded: []fleet.RecordedTemplate{lt("lt-1", "a", "fa", 1), lt("lt-2", "b", "fb", 1), lt("lt-3", "c", "fc", 2)},
			owned:    []fleet.RecordedTemplate{lt("lt-1", "a", "fa-changed", 3), lt("lt-3", "c", "fc", 2), lt("lt-9", "z", "fz", 1)},
			want: []fleet.RecordedTemplate{
				{ID: "lt-1", Name: "a", Fingerprint: "fa-changed", DefaultVersion: 3, Tags: map[string]string{"k": "a"}},
				lt("lt-3", "c", "fc", 2),
			},
			from: []int{0, 2},
		},
		{
			name:     "static import: unrecorded owned adopted",
			recorded: []fleet.RecordedTemplate{lt("lt-1", "a", "fa", 1)},
			owned:    []fleet.RecordedTemplate{lt("lt-9", "z", "fz", 1), lt("lt-1", "a", "fa", 1)},
			adopt:    true,
			want:     []fleet.RecordedTemplate{lt("lt-1", "a", "fa", 1), lt("lt-9", "z", "fz", 1)},
			from:     []int{0, -1},
		},
		{
			name:     "static, nothing in EC2",
			recorded: []fleet.RecordedTemplate{lt("lt-1", "a", "fa", 1)},
			want:     nil,
			from:     nil,
		},
		{
			name:     "dynamic: planned stay, unrecorded owned adopted",
			recorded: []fleet.RecordedTemplate{lt("", "p1", "fp1", 0), lt("lt-7", "p2", "fp2", 4)},
			owned:    []fleet.RecordedTemplate{lt("lt-8", "old", "fo", 1)},
			dynamic:  true,
			want: []fleet.RecordedTemplate{
				lt("", "p1", "fp1", 0),
				{ID: "", Name: "p2", Fingerprint: "fp2", DefaultVersion: 0, Tags: map[string]string{"k": "p2"}},
				lt("lt-8", "old", "fo", 1),
			},
			from: []int{0, 1, -1},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, from := fleet.ReadTemplates(tc.recorded, tc.owned, tc.dynamic, tc.adopt)
			if !slices.EqualFunc(got, tc.want, sameTemplate) {
				t.Errorf("templates\n got %+v\nwant %+v", got, tc.want)
			}
			if !slices.Equal(from, tc.from) {
				t.Errorf("from = %v, want %v", from, tc.from)
			}
		})
	}
}

func sameTemplate(a, b fleet.LaunchTemplate) bool {
	return a.ID == b.ID && a.Name == b.Name && a.Fingerprint == b.Fingerprint && a.DefaultVersion == b.DefaultVersion && maps.Equal(a.Tags, b.Tags)
}
