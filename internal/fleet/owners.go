package fleet

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
	"github.com/nodeplane/terraform-provider-karpenter/internal/launchplan"
)

// Listing is what ownership reads of EC2 (awsclient.Client): listings by tag, within a scope
// listed once per walk (nil scope: list by the tags themselves).
type Listing interface {
	ListTemplates(ctx context.Context, scope, tags map[string]string) ([]LaunchTemplate, error)
	ReadTemplates(ctx context.Context, scope, tags map[string]string, known map[string]LaunchTemplate) ([]LaunchTemplate, error)
	ReadInstances(ctx context.Context, scope, tags map[string]string) ([]Instance, error)
}

// Cluster is the ownership policy of one cluster's pools: which objects are a pool's, whose
// they are, and whether a name is free.
type Cluster struct {
	Name string // the provider's cluster_name ("" without one)
	EC2  Listing
}

// Scope is the cluster's read scope (ReadScope).
func (c Cluster) Scope() map[string]string { return ReadScope(c.Name) }

// Own are the ownership tags of a pool's owner (OwnershipOf).
func (c Cluster) Own(pool, owner string) Ownership { return OwnershipOf(c.Name, pool, owner) }

// TemplatesByOwner lists the launch templates of a pool name in the cluster, by owner id (""
// for templates without one). Without a cluster name, templates tagged with a cluster are
// another cluster's pool of the same name and left out. A plan reads the walk's shared listing
// (shared); apply and import list afresh.
func (c Cluster) TemplatesByOwner(ctx context.Context, pool string, shared bool) (map[string][]LaunchTemplate, error) {
	scope := c.Scope()
	if !shared {
		scope = nil
	}
	listed, err := c.EC2.ListTemplates(ctx, scope, PoolTags(c.Name, pool))
	if err != nil {
		return nil, err
	}
	out := map[string][]LaunchTemplate{}
	for _, lt := range listed {
		if c.Name == "" && lt.Tags[launchplan.TagCluster] != "" {
			continue
		}
		out[lt.Tags[launchplan.TagOwner]] = append(out[lt.Tags[launchplan.TagOwner]], lt)
	}
	return out, nil
}

var pathName = attrpath.Of("name")

// Conflicts are the findings, on `name`, for templates of this pool name in the cluster that
// carry an owner id: a new pool has none yet, so every owner there is another. (Templates
// without one, from earlier development builds, surface at apply: EnsureTemplates refuses
// them.) It holds for dynamic pools too: they hold no templates themselves, but another owner's
// static pool (or a dynamic pool of an earlier provider version) of the name still has some.
// Two dynamic pools of one name leave nothing in EC2 to meet on; their NodePool object in the
// cluster is shared.
func (c Cluster) Conflicts(ctx context.Context, pool string, shared bool) ([]attrpath.Finding, error) {
	others, err := c.TemplatesByOwner(ctx, pool, shared)
	if err != nil {
		return nil, Error{Summary: "Cannot list the pool's launch templates", Detail: err.Error(), Err: err}
	}
	delete(others, "")
	var out []attrpath.Finding
	for _, o := range slices.Sorted(maps.Keys(others)) {
		names := make([]string, len(others[o]))
		for i, lt := range others[o] {
			names[i] = fmt.Sprintf("%s (%s)", lt.Name, lt.ID)
		}
		id := pool + "/" + o
		out = append(out, attrpath.Finding{Path: pathName, Summary: "Node pool name already taken",
			Message: fmt.Sprintf("node pool %q%s already has EC2 objects of owner %s: launch templates %s. Another Terraform state (or an "+
				"apply that was interrupted before it saved state) holds this pool; this configuration would share its templates and "+
				"nodes. To run a separate pool, give it another name. To take these objects over on purpose, import them: "+
				"`terraform import <address> %s` (or an `import { id = %q }` block).",
				pool, c.suffix(), o, strings.Join(names, ", "), id, id)})
	}
	return out, nil
}

func (c Cluster) suffix() string {
	if c.Name == "" {
		return " (no cluster)"
	}
	return " in cluster " + c.Name
}

// Import is the pool an import id names.
type Import struct {
	Pool, Owner string
	// Live is the owner's live instances: a pool with some is imported as static with
	// replicas = Live, so the next plan does not replace it.
	Live int
	// Warning is set when nobody holds the name: the pool is imported as a dynamic pool with a
	// new owner id (a dynamic pool holds no EC2 objects).
	Warning string
}

// ImportTarget resolves an import id: `<name>` when exactly one owner holds that pool name in
// the cluster (or nobody: a dynamic pool), `<name>/<owner id>` to pick one, which must hold
// templates there.
func (c Cluster) ImportTarget(ctx context.Context, id string) (Import, error) {
	pool, owner, _ := strings.Cut(id, "/")
	owners, err := c.TemplatesByOwner(ctx, pool, false)
	if err != nil {
		return Import{}, Error{Summary: "Cannot list the pool's launch templates", Detail: err.Error(), Err: err}
	}
	delete(owners, "") // written before owner ids: nobody's to adopt
	list := "none"
	if len(owners) > 0 {
		list = strings.Join(slices.Sorted(maps.Keys(owners)), ", ")
	}
	switch {
	case owner != "" && len(owners[owner]) == 0:
		return Import{}, Error{Summary: "Node pool not found", Detail: fmt.Sprintf("no launch template of node pool %q%s has owner id %q (owners found: %s).",
			pool, c.suffix(), owner, list)}
	case owner == "" && len(owners) == 0:
		return Import{Pool: pool, Owner: NewOwnerID(), Warning: fmt.Sprintf("no EC2 object of node pool %q%s carries the provider's "+
			"ownership tags. A dynamic pool has none (Karpenter launches its nodes), so it is imported as one, with a new owner id; the next "+
			"plan fills it in from the configuration. A static pool (`replicas`) has launch templates: if you meant one, check the name and "+
			"the provider's cluster_name, as the next plan would replace it.", pool, c.suffix())}, nil
	case owner == "" && len(owners) > 1:
		return Import{}, Error{Summary: "Node pool held by several owners", Detail: fmt.Sprintf("node pool %q%s has launch templates of owners %s: "+
			"import one as <name>/<owner id>.", pool, c.suffix(), list)}
	case owner == "":
		owner = slices.Collect(maps.Keys(owners))[0]
	}
	found, err := c.EC2.ReadInstances(ctx, nil, c.Own(pool, owner))
	if err != nil {
		return Import{}, Error{Summary: "Cannot list the pool's instances", Detail: err.Error(), Err: err}
	}
	imp := Import{Pool: pool, Owner: owner}
	for _, i := range found {
		if i.Live() {
			imp.Live++
		}
	}
	return imp, nil
}

// RecordedTemplate is a launch template as a pool's state records it; ID is "" for a template
// only planned (a dynamic pool's).
type RecordedTemplate = LaunchTemplate

// ReadTemplates reconciles the recorded templates with what the owner holds in EC2. Static
// pool: a deleted one drops out and a changed one shows its real fingerprint, so the next plan
// restores it. Dynamic pool: its planned templates are not in EC2 (ID "") and stay as recorded.
// Templates the owner holds but the state does not record are adopted after an import (adopt)
// and for a dynamic pool (written by an earlier provider version, or left by a failed delete),
// so the next plan shows them and apply deletes them. Each result names the recorded entry it
// updates (-1: adopted).
func ReadTemplates(recorded []RecordedTemplate, owned []LaunchTemplate, dynamic, adopt bool) ([]RecordedTemplate, []int) {
	byName := make(map[string]LaunchTemplate, len(owned))
	for _, o := range owned {
		byName[o.Name] = o
	}
	var out []RecordedTemplate
	var from []int
	matched := map[string]bool{}
	for i, lt := range recorded {
		o, ok := byName[lt.Name]
		switch {
		case ok:
			lt.ID, lt.Fingerprint, lt.DefaultVersion = o.ID, o.Fingerprint, o.DefaultVersion
			matched[o.Name] = true
		case dynamic: // planned only: not in EC2 is what it should be
			lt.ID, lt.DefaultVersion = "", 0
		default:
			continue
		}
		out, from = append(out, lt), append(from, i)
	}
	if adopt || dynamic {
		for _, o := range owned {
			if !matched[o.Name] {
				out, from = append(out, o), append(from, -1)
			}
		}
	}
	return out, from
}

// Findings of a pool state written before owner ids (development builds): the provider cannot
// tell its EC2 objects from another owner's, so it changes and deletes none of them.
var (
	StateWithoutOwner = attrpath.Finding{Path: attrpath.Of("owner_id"), Summary: "Node pool state without an owner id",
		Message: "This pool was applied by a development build before owner ids: the provider cannot tell its EC2 objects from another " +
			"owner's and changes none of them. Delete the pool's launch templates (and static instances) in EC2, run " +
			"`terraform state rm` for this resource, and apply again."}
	DeleteWithoutOwner = attrpath.Finding{Summary: "Node pool without an owner id",
		Message: "This state was written before owner ids: nothing is deleted in EC2 (the provider cannot tell its objects from another owner's). " +
			"Delete the pool's launch templates and instances yourself if they are no longer used."}
)

// StaticPools are the pool names of the cluster that hold launch templates with an owner id
// (the provider's static pools), each with its owners, sorted.
func (c Cluster) StaticPools(ctx context.Context) (map[string][]string, error) {
	tags := map[string]string{launchplan.TagManagedBy: launchplan.ManagedBy}
	if c.Name != "" {
		tags[launchplan.TagCluster] = c.Name
	}
	listed, err := c.EC2.ListTemplates(ctx, nil, tags)
	if err != nil {
		return nil, err
	}
	out := map[string][]string{}
	for _, lt := range listed {
		pool, owner := lt.Tags[launchplan.TagNodePool], lt.Tags[launchplan.TagOwner]
		if pool == "" || owner == "" || c.Name == "" && lt.Tags[launchplan.TagCluster] != "" || slices.Contains(out[pool], owner) {
			continue
		}
		out[pool] = append(out[pool], owner)
		slices.Sort(out[pool])
	}
	return out, nil
}
