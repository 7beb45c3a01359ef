package nodeclass

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
	"github.com/nodeplane/terraform-provider-karpenter/internal/discovery"
	"github.com/nodeplane/terraform-provider-karpenter/internal/requirements"
)

// AMI is one image the class resolves to, with the requirements it serves: EC2NodeClass
// status.amis as Karpenter computes it.
type AMI struct {
	ID           string
	Name         string
	Architecture string // kubernetes.io/arch: amd64 or arm64
	CreationDate string // RFC 3339, as EC2 reports it
	Deprecated   bool
	// Variant is the accelerator flavour an alias's parameter gives the image; "" for images
	// found by id, name, tags or ssm_parameter, which serve any instance type of their
	// architecture.
	Variant AMIVariant
}

// Requirements are the image's node-selector requirements in Karpenter's words, e.g.
// "kubernetes.io/arch In [amd64]", "karpenter.k8s.aws/instance-gpu-count Exists".
func (a AMI) Requirements() []string {
	out := []string{requirements.LabelArch + " In [" + a.Architecture + "]"}
	present, absent := a.Variant.InstanceLabels()
	for _, l := range present {
		out = append(out, l+" Exists")
	}
	for _, l := range absent {
		out = append(out, l+" DoesNotExist")
	}
	return out
}

// Serves reports whether an instance type with these labels (catalog.Labels) can run the image.
func (a AMI) Serves(labels map[string]string) bool {
	if labels[requirements.LabelArch] != a.Architecture {
		return false
	}
	present, absent := a.Variant.InstanceLabels()
	for _, l := range present {
		if _, ok := labels[l]; !ok {
			return false
		}
	}
	for _, l := range absent {
		if _, ok := labels[l]; ok {
			return false
		}
	}
	return true
}

// kubeArchitectures maps EC2 image architectures to kubernetes.io/arch; Karpenter skips images
// of any other architecture (i386, the mac ones).
var kubeArchitectures = map[string]string{"x86_64": "amd64", "arm64": "arm64"}

// KubeArchitecture is the kubernetes.io/arch value of an EC2 architecture, "" when Karpenter
// cannot use it.
func KubeArchitecture(ec2Arch string) string { return kubeArchitectures[ec2Arch] }

// AMIResolution is what the AMI selector terms resolve to at plan.
type AMIResolution struct {
	// AMIs in Karpenter's order: newest first, then by id. One per requirement set: the newest
	// non-deprecated image of each architecture (and alias variant).
	AMIs []AMI
	// Unresolved says why an alias term resolved to no image at plan (no Kubernetes version,
	// parameters missing or unreadable). Karpenter resolves aliases itself at runtime, so this
	// is no error for the class; a pool that launches nodes itself needs an image.
	Unresolved string
}

// IDs lists the resolved image ids in order.
func (r AMIResolution) IDs() []string {
	out := make([]string, len(r.AMIs))
	for i, a := range r.AMIs {
		out[i] = a.ID
	}
	return out
}

// ResolveAMIs resolves the class's AMI selector terms as Karpenter does (amifamily.List):
// an alias through the AWS public SSM parameters of kubernetesVersion; id and ssm_parameter
// terms through one image-id query; each name/owner/tags term through its own query (owners
// default to self and amazon when a name is given). Per requirement set (architecture, alias
// variant) the newest non-deprecated image wins; the result is sorted newest first.
//
// Findings: a term that finds nothing is an error when no term finds anything, else a warning;
// a missing ssm_parameter or one that names no image is reported on that parameter. err is an
// API failure other than a missing parameter.
func ResolveAMIs(ctx context.Context, api discovery.ImageAPI, terms []AMITerm, kubernetesVersion string, now time.Time) (AMIResolution, Findings, error) {
	if len(terms) == 1 && terms[0].Alias != "" {
		return resolveAliasTerm(ctx, api, terms[0].Alias, kubernetesVersion, now)
	}
	r := termImages{
		api:     api,
		now:     now,
		found:   make([]bool, len(terms)),
		notes:   make([]string, len(terms)),
		idTerms: map[string][]int{},
	}
	for i, t := range terms {
		var err error
		switch {
		case t.ID != "":
			r.nameID(i, t.ID)
		case t.SSMParameter != "":
			r.resolveParameter(ctx, i, t.SSMParameter)
		default:
			err = r.findImages(ctx, i, t)
		}
		if err != nil {
			return AMIResolution{}, r.f, err
		}
	}
	if err := r.describeIDs(ctx); err != nil {
		return AMIResolution{}, r.f, err
	}
	var res AMIResolution
	res.AMIs = newestPerRequirements(r.candidates)
	r.reportUnfound(len(res.AMIs) > 0)
	return res, r.f, nil
}

// resolveAliasTerm resolves a class whose only term is an alias; an alias Karpenter refuses is
// an error on that alias.
func resolveAliasTerm(ctx context.Context, api discovery.ImageAPI, alias, kubernetesVersion string, now time.Time) (AMIResolution, Findings, error) {
	var res AMIResolution
	var f Findings
	amis, unresolved, err := resolveAlias(ctx, api, alias, kubernetesVersion, now)
	if err != nil {
		var ae aliasError
		if errors.As(err, &ae) {
			f.Errors = append(f.Errors, FieldError{Path: attrpath.Of("ami_selector_terms").Index(0).Attr("alias"), Message: ae.Error()})
			return res, f, nil
		}
		return res, f, err
	}
	res.AMIs, res.Unresolved = amis, unresolved
	return res, f, nil
}

// termImages gathers, term by term, the images the selector terms find.
type termImages struct {
	api        discovery.ImageAPI
	now        time.Time
	candidates []AMI
	found      []bool           // by term: it found an image, or its problem is reported already
	notes      []string         // by term: why it found nothing
	idTerms    map[string][]int // image id -> terms naming it (id or ssm_parameter)
	ids        []string         // the ids to describe in one query
	f          Findings
}

// nameID records that term i names image id, to be described with the others.
func (r *termImages) nameID(i int, id string) {
	r.idTerms[id] = append(r.idTerms[id], i)
	r.ids = append(r.ids, id)
}

// resolveParameter reads term i's SSM parameter and records the image it names; a missing
// parameter, an SSM error or a value that is no AMI id is an error on the parameter.
func (r *termImages) resolveParameter(ctx context.Context, i int, name string) {
	at := attrpath.Of("ami_selector_terms").Index(i).Attr("ssm_parameter")
	v, err := r.api.GetParameter(ctx, name)
	switch {
	case errors.Is(err, discovery.ErrParameterNotFound):
		r.f.Errors = append(r.f.Errors, FieldError{Path: at,
			Message: fmt.Sprintf("SSM parameter %q does not exist (in this account and region)", name)})
		r.found[i] = true // reported already
		return
	case err != nil:
		r.f.Errors = append(r.f.Errors, FieldError{Path: at, Message: err.Error()})
		r.found[i] = true
		return
	case !strings.HasPrefix(v, "ami-"):
		r.f.Errors = append(r.f.Errors, FieldError{Path: at,
			Message: fmt.Sprintf("SSM parameter %q holds %q, which is not an AMI id", name, v)})
		r.found[i] = true
		return
	}
	r.nameID(i, v)
	r.notes[i] = fmt.Sprintf("SSM parameter %q names image %s, which does not exist or is not available", name, v)
}

// findImages runs term i's name/owner/tags query and keeps the images of an architecture
// Karpenter can use.
func (r *termImages) findImages(ctx context.Context, i int, t AMITerm) error {
	q := imageQuery(t)
	images, err := r.api.FindImages(ctx, q)
	if err != nil {
		return err
	}
	for _, img := range images {
		if arch := KubeArchitecture(img.Architecture); arch != "" {
			r.found[i] = true
			r.candidates = append(r.candidates, amiOf(img, arch, "", r.now))
		}
	}
	r.notes[i] = "no available image matched " + describeImageQuery(q)
	return nil
}

// describeIDs describes every named image in one query, keeping those of a usable architecture;
// a term whose image is not among them gets a note saying so.
func (r *termImages) describeIDs(ctx context.Context) error {
	if len(r.ids) == 0 {
		return nil
	}
	images, err := r.api.FindImages(ctx, discovery.ImageQuery{IDs: r.ids})
	if err != nil {
		return err
	}
	for _, img := range images {
		arch := KubeArchitecture(img.Architecture)
		if arch == "" {
			continue
		}
		for _, i := range r.idTerms[img.ID] {
			r.found[i] = true
		}
		r.candidates = append(r.candidates, amiOf(img, arch, "", r.now))
	}
	for id, is := range r.idTerms {
		for _, i := range is {
			if r.notes[i] == "" {
				r.notes[i] = fmt.Sprintf("image %s does not exist, is not available, or has an architecture Karpenter cannot use", id)
			}
		}
	}
	return nil
}

// reportUnfound reports each term that found nothing: an error when no term resolved (anyResolved
// false), else a warning, since Karpenter uses the images the other terms find.
func (r *termImages) reportUnfound(anyResolved bool) {
	for i := range r.found {
		if r.found[i] {
			continue
		}
		e := FieldError{Path: attrpath.Of("ami_selector_terms").Index(i), Message: r.notes[i]}
		if !anyResolved {
			r.f.Errors = append(r.f.Errors, e)
		} else {
			e.Message += "; the other terms resolve, so Karpenter would use those"
			r.f.Warnings = append(r.f.Warnings, e)
		}
	}
}

// aliasError is an alias Karpenter refuses for the cluster's version.
type aliasError struct{ error }

// resolveAlias reads the alias's public parameters and describes the images they name. A
// missing Kubernetes version, missing parameters or an SSM error leave it unresolved (with the
// reason); an alias Karpenter refuses is an aliasError.
func resolveAlias(ctx context.Context, api discovery.ImageAPI, alias, kubernetesVersion string, now time.Time) ([]AMI, string, error) {
	if kubernetesVersion == "" {
		return nil, fmt.Sprintf("alias %q is resolved at plan only with the cluster's Kubernetes version: set kubernetes_version on the provider", alias), nil
	}
	params, err := AliasParameters(alias, kubernetesVersion)
	if err != nil {
		return nil, "", aliasError{err}
	}
	known := map[string][]AMIVariant{}
	var ids, missing []string
	for _, p := range params {
		v, err := api.GetParameter(ctx, p.Name)
		if errors.Is(err, discovery.ErrParameterNotFound) {
			missing = append(missing, p.Name)
			continue
		}
		if err != nil {
			return nil, fmt.Sprintf("alias %q: %v", alias, err), nil
		}
		if !strings.HasPrefix(v, "ami-") {
			continue // Karpenter skips a parameter whose value is not an AMI id
		}
		if _, ok := known[v]; !ok {
			ids = append(ids, v)
		}
		variants := p.Variants
		if len(variants) == 0 {
			variants = []AMIVariant{""}
		}
		for _, vr := range variants {
			if !slices.Contains(known[v], vr) {
				known[v] = append(known[v], vr)
			}
		}
	}
	if len(ids) == 0 {
		return nil, fmt.Sprintf("alias %q: none of its %d public SSM parameters for Kubernetes %s could be read (first: %s)",
			alias, len(params), kubernetesVersion, missing[0]), nil
	}
	images, err := api.FindImages(ctx, discovery.ImageQuery{IDs: ids})
	if err != nil {
		return nil, "", err
	}
	var candidates []AMI
	for _, img := range images {
		arch := KubeArchitecture(img.Architecture)
		if arch == "" {
			continue
		}
		for _, vr := range known[img.ID] {
			candidates = append(candidates, amiOf(img, arch, vr, now))
		}
	}
	amis := newestPerRequirements(candidates)
	if len(amis) == 0 {
		return nil, fmt.Sprintf("alias %q: its parameters name %s, which EC2 does not describe", alias, strings.Join(ids, ", ")), nil
	}
	return amis, "", nil
}

func amiOf(img discovery.Image, arch string, v AMIVariant, now time.Time) AMI {
	return AMI{ID: img.ID, Name: img.Name, Architecture: arch, CreationDate: img.CreationDate, Variant: v,
		Deprecated: img.DeprecationTime != "" && !parseTime(img.DeprecationTime, time.Unix(math.MaxInt32, 0)).After(now)}
}

func parseTime(s string, def time.Time) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return def
	}
	return t
}

// betterAMI reports whether a should replace b for one requirement set: not deprecated over
// deprecated, then newer, then the greater name (Karpenter's compareAMI).
func betterAMI(a, b AMI) bool {
	if a.Deprecated != b.Deprecated {
		return !a.Deprecated
	}
	at, bt := parseTime(a.CreationDate, time.Time{}).Unix(), parseTime(b.CreationDate, time.Time{}).Unix()
	if at != bt {
		return at > bt
	}
	return a.Name > b.Name
}

// newestPerRequirements keeps the best image per requirement set and sorts the result newest
// first, then by id (Karpenter's AMIs.Sort).
func newestPerRequirements(cs []AMI) []AMI {
	type key struct {
		arch    string
		variant AMIVariant
	}
	best := map[key]AMI{}
	var order []key
	for _, c := range cs {
		k := key{c.Architecture, c.Variant}
		cur, ok := best[k]
		if !ok {
			order = append(order, k)
		}
		if !ok || betterAMI(c, cur) {
			best[k] = c
		}
	}
	out := make([]AMI, 0, len(order))
	for _, k := range order {
		out = append(out, best[k])
	}
	slices.SortStableFunc(out, func(a, b AMI) int {
		at, bt := parseTime(a.CreationDate, time.Time{}).Unix(), parseTime(b.CreationDate, time.Time{}).Unix()
		if at != bt {
			if at > bt {
				return -1
			}
			return 1
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out
}

// imageQuery is the DescribeImages query of a name/owner/tags term.
func imageQuery(t AMITerm) discovery.ImageQuery {
	var q discovery.ImageQuery
	if t.Owner != "" {
		q.Owners = []string{t.Owner}
	} else if t.Name != "" {
		// Karpenter's default: no cross-account image unless the owner is named.
		q.Owners = []string{"self", "amazon"}
	}
	if t.Name != "" {
		q.Filters = append(q.Filters, discovery.Filter{Name: "name", Values: []string{t.Name}})
	}
	for _, k := range slices.Sorted(maps.Keys(t.Tags)) {
		if v := t.Tags[k]; v == "*" {
			q.Filters = append(q.Filters, discovery.Filter{Name: "tag-key", Values: []string{k}})
		} else {
			q.Filters = append(q.Filters, discovery.Filter{Name: "tag:" + k, Values: []string{v}})
		}
	}
	return q
}

func describeImageQuery(q discovery.ImageQuery) string {
	var parts []string
	for _, f := range q.Filters {
		parts = append(parts, f.Name+"="+strings.Join(f.Values, ","))
	}
	if len(q.Owners) > 0 {
		parts = append(parts, "owners "+strings.Join(q.Owners, ", "))
	}
	return strings.Join(parts, ", ")
}
