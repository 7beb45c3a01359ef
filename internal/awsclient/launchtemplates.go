package awsclient

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"sort"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/nodeplane/terraform-provider-karpenter/internal/fleet"
	"github.com/nodeplane/terraform-provider-karpenter/internal/launchplan"
)

// LaunchTemplateAPI is the slice of EC2 the launch-template code uses.
type LaunchTemplateAPI interface {
	CreateLaunchTemplate(context.Context, *ec2.CreateLaunchTemplateInput, ...func(*ec2.Options)) (*ec2.CreateLaunchTemplateOutput, error)
	CreateLaunchTemplateVersion(context.Context, *ec2.CreateLaunchTemplateVersionInput, ...func(*ec2.Options)) (*ec2.CreateLaunchTemplateVersionOutput, error)
	ModifyLaunchTemplate(context.Context, *ec2.ModifyLaunchTemplateInput, ...func(*ec2.Options)) (*ec2.ModifyLaunchTemplateOutput, error)
	DescribeLaunchTemplates(context.Context, *ec2.DescribeLaunchTemplatesInput, ...func(*ec2.Options)) (*ec2.DescribeLaunchTemplatesOutput, error)
	DescribeLaunchTemplateVersions(context.Context, *ec2.DescribeLaunchTemplateVersionsInput, ...func(*ec2.Options)) (*ec2.DescribeLaunchTemplateVersionsOutput, error)
	DeleteLaunchTemplate(context.Context, *ec2.DeleteLaunchTemplateInput, ...func(*ec2.Options)) (*ec2.DeleteLaunchTemplateOutput, error)
}

var _ LaunchTemplateAPI = (*ec2.Client)(nil)

// requestData is the EC2 form of a planned template.
func requestData(lt launchplan.LaunchTemplate) *ec2types.RequestLaunchTemplateData {
	c := lt.Content()
	d := &ec2types.RequestLaunchTemplateData{
		MetadataOptions: &ec2types.LaunchTemplateInstanceMetadataOptionsRequest{
			HttpEndpoint:            ec2types.LaunchTemplateInstanceMetadataEndpointState(c.HTTPEndpoint),
			HttpProtocolIpv6:        ec2types.LaunchTemplateInstanceMetadataProtocolIpv6(c.HTTPProtocolIPv6),
			HttpTokens:              ec2types.LaunchTemplateHttpTokensState(c.HTTPTokens),
			HttpPutResponseHopLimit: aws.Int32(c.HopLimit),
			InstanceMetadataTags:    ec2types.LaunchTemplateInstanceMetadataTagsStateDisabled,
		},
		Monitoring: &ec2types.LaunchTemplatesMonitoringRequest{Enabled: aws.Bool(c.DetailedMonitoring)},
	}
	if c.ImageID != "" {
		d.ImageId = aws.String(c.ImageID)
	}
	if c.UserData != "" {
		d.UserData = aws.String(c.UserData)
	}
	if c.InstanceProfile != "" {
		d.IamInstanceProfile = &ec2types.LaunchTemplateIamInstanceProfileSpecificationRequest{Name: aws.String(c.InstanceProfile)}
	}
	for _, ni := range c.Interfaces {
		d.NetworkInterfaces = append(d.NetworkInterfaces, ec2types.LaunchTemplateInstanceNetworkInterfaceSpecificationRequest{
			NetworkCardIndex: aws.Int32(ni.Card), DeviceIndex: aws.Int32(ni.Device), InterfaceType: aws.String(ni.Type),
			Groups: ni.Groups, AssociatePublicIpAddress: ni.PublicIP, Ipv4PrefixCount: ni.Prefixes,
			DeleteOnTermination: aws.Bool(true),
		})
	}
	for _, b := range c.BlockDevices {
		ebs := &ec2types.LaunchTemplateEbsBlockDeviceRequest{
			Encrypted: b.Encrypted, DeleteOnTermination: b.DeleteOnTermination, Iops: b.IOPS, Throughput: b.Throughput,
			VolumeType: ec2types.VolumeType(b.Type),
		}
		if b.Size > 0 {
			ebs.VolumeSize = aws.Int32(b.Size)
		}
		if b.KMSKeyID != "" {
			ebs.KmsKeyId = aws.String(b.KMSKeyID)
		}
		if b.Snapshot != "" {
			ebs.SnapshotId = aws.String(b.Snapshot)
		}
		d.BlockDeviceMappings = append(d.BlockDeviceMappings, ec2types.LaunchTemplateBlockDeviceMappingRequest{DeviceName: aws.String(b.Device), Ebs: ebs})
	}
	if len(lt.Tags) > 0 {
		tags := tagList(lt.Tags)
		// Instances also carry the template's name and the fingerprint of the content they were
		// launched with: a static pool replaces nodes whose fingerprint is no longer the
		// template's (Karpenter's drift). The fingerprint leaves TagSpecifications out, so the
		// tag does not feed back into it.
		instanceTags := maps.Clone(lt.Tags)
		instanceTags[launchplan.TagLaunchTemplateName] = lt.Name
		instanceTags[launchplan.TagTemplateFingerprint] = lt.Fingerprint()
		d.TagSpecifications = []ec2types.LaunchTemplateTagSpecificationRequest{
			{ResourceType: ec2types.ResourceTypeInstance, Tags: tagList(instanceTags)},
			{ResourceType: ec2types.ResourceTypeVolume, Tags: tags},
			{ResourceType: ec2types.ResourceTypeNetworkInterface, Tags: tags},
		}
	}
	return d
}

// contentFromResponse maps EC2's answer back into the canonical form.
func contentFromResponse(d *ec2types.ResponseLaunchTemplateData) launchplan.TemplateContent {
	c := launchplan.TemplateContent{ImageID: aws.ToString(d.ImageId), UserData: aws.ToString(d.UserData)}
	if m := d.MetadataOptions; m != nil {
		c.HTTPEndpoint, c.HTTPProtocolIPv6, c.HTTPTokens = string(m.HttpEndpoint), string(m.HttpProtocolIpv6), string(m.HttpTokens)
		c.HopLimit = aws.ToInt32(m.HttpPutResponseHopLimit)
	}
	if d.Monitoring != nil {
		c.DetailedMonitoring = aws.ToBool(d.Monitoring.Enabled)
	}
	if d.IamInstanceProfile != nil {
		c.InstanceProfile = aws.ToString(d.IamInstanceProfile.Name)
	}
	for _, ni := range d.NetworkInterfaces {
		c.Interfaces = append(c.Interfaces, launchplan.ContentInterface{
			Card: aws.ToInt32(ni.NetworkCardIndex), Device: aws.ToInt32(ni.DeviceIndex), Type: aws.ToString(ni.InterfaceType),
			Groups: append([]string(nil), ni.Groups...), PublicIP: ni.AssociatePublicIpAddress, Prefixes: ni.Ipv4PrefixCount,
		})
	}
	for _, b := range d.BlockDeviceMappings {
		cb := launchplan.ContentBlockDevice{Device: aws.ToString(b.DeviceName)}
		if e := b.Ebs; e != nil {
			cb.Size, cb.Type = aws.ToInt32(e.VolumeSize), string(e.VolumeType)
			cb.Encrypted, cb.DeleteOnTermination, cb.IOPS, cb.Throughput = e.Encrypted, e.DeleteOnTermination, e.Iops, e.Throughput
			cb.KMSKeyID, cb.Snapshot = aws.ToString(e.KmsKeyId), aws.ToString(e.SnapshotId)
		}
		c.BlockDevices = append(c.BlockDevices, cb)
	}
	return c
}

func tagList(m map[string]string) []ec2types.Tag {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	tags := make([]ec2types.Tag, 0, len(keys))
	for _, k := range keys {
		tags = append(tags, ec2types.Tag{Key: aws.String(k), Value: aws.String(m[k])})
	}
	return tags
}

// tagFilters are EC2 filters matching every tag, in key order.
func tagFilters(m map[string]string) []ec2types.Filter {
	var filters []ec2types.Filter
	for _, t := range tagList(m) {
		filters = append(filters, ec2types.Filter{Name: aws.String("tag:" + aws.ToString(t.Key)), Values: []string{aws.ToString(t.Value)}})
	}
	return filters
}

// LaunchTemplates creates, updates, finds and deletes the provider's launch templates.
type LaunchTemplates struct{ EC2 LaunchTemplateAPI }

// Ensure makes EC2 hold the planned template: created when missing; when its default version
// differs, a new version is written and made the default. Idempotent: retried calls converge.
func (l LaunchTemplates) Ensure(ctx context.Context, lt launchplan.LaunchTemplate) (fleet.LaunchTemplate, error) {
	want := lt.Fingerprint()
	// An AlreadyExists answer means a concurrent or interrupted earlier call created it: look
	// again and converge on what exists. EC2 may not list it by name yet (eventual
	// consistency), so the lookups are bounded and paused, never a tight create/describe loop.
	for attempt := 0; ; attempt++ {
		if attempt > 1 {
			select {
			case <-time.After(ensureExistsPause << (attempt - 2)):
			case <-ctx.Done():
				return fleet.LaunchTemplate{}, ctx.Err()
			}
		}
		cur, err := l.FindByName(ctx, lt.Name)
		switch {
		case err == nil:
			return l.update(ctx, lt, cur, want)
		case !errors.Is(err, ErrNotFound):
			return fleet.LaunchTemplate{}, err
		}
		out, err := l.EC2.CreateLaunchTemplate(ctx, &ec2.CreateLaunchTemplateInput{
			LaunchTemplateName: aws.String(lt.Name),
			LaunchTemplateData: requestData(lt),
			VersionDescription: aws.String("terraform-provider-karpenter"),
			TagSpecifications:  []ec2types.TagSpecification{{ResourceType: ec2types.ResourceTypeLaunchTemplate, Tags: tagList(lt.Tags)}},
		})
		if IsAlreadyExists(err) {
			if attempt >= ensureExistsLookups {
				return fleet.LaunchTemplate{}, fmt.Errorf("creating launch template %s: it exists but cannot be found by name: %w", lt.Name, err)
			}
			continue
		}
		if err != nil {
			return fleet.LaunchTemplate{}, fmt.Errorf("creating launch template %s: %w", lt.Name, err)
		}
		return fleet.LaunchTemplate{
			ID: aws.ToString(out.LaunchTemplate.LaunchTemplateId), Name: lt.Name,
			DefaultVersion: aws.ToInt64(out.LaunchTemplate.DefaultVersionNumber), Tags: lt.Tags, Fingerprint: want,
		}, nil
	}
}

// update brings an existing template to the wanted content with a new default version.
func (l LaunchTemplates) update(ctx context.Context, lt launchplan.LaunchTemplate, cur fleet.LaunchTemplate, want string) (fleet.LaunchTemplate, error) {
	if cur.Tags[launchplan.TagManagedBy] != launchplan.ManagedBy {
		// Same name, but not ours: never write to an EC2 object the provider did not create.
		return fleet.LaunchTemplate{}, fmt.Errorf("launch template %s (%s) exists but was not created by %s (no %s tag); "+
			"the provider does not write to it: delete or rename it, or change the pool or cluster name", lt.Name, cur.ID,
			launchplan.ManagedBy, launchplan.TagManagedBy)
	}
	if owner := lt.Tags[launchplan.TagOwner]; owner != "" && cur.Tags[launchplan.TagOwner] != owner {
		return fleet.LaunchTemplate{}, fmt.Errorf("%w: launch template %s (%s) belongs to owner %q, not %q; the provider does not write to it",
			ErrOwnedByOther, lt.Name, cur.ID, cur.Tags[launchplan.TagOwner], owner)
	}
	if cur.Fingerprint == want {
		return cur, nil
	}
	v, err := l.EC2.CreateLaunchTemplateVersion(ctx, &ec2.CreateLaunchTemplateVersionInput{
		LaunchTemplateId:   aws.String(cur.ID),
		LaunchTemplateData: requestData(lt),
		VersionDescription: aws.String("terraform-provider-karpenter"),
	})
	if err != nil {
		return fleet.LaunchTemplate{}, fmt.Errorf("writing a new version of launch template %s: %w", lt.Name, err)
	}
	num := aws.ToInt64(v.LaunchTemplateVersion.VersionNumber)
	// By id: LocalStack's ModifyLaunchTemplate fails on a name-only request.
	if _, err := l.EC2.ModifyLaunchTemplate(ctx, &ec2.ModifyLaunchTemplateInput{
		LaunchTemplateId: aws.String(cur.ID), DefaultVersion: aws.String(strconv.FormatInt(num, 10)),
	}); err != nil {
		return fleet.LaunchTemplate{}, fmt.Errorf("making version %d the default of launch template %s: %w", num, lt.Name, err)
	}
	cur.DefaultVersion, cur.Fingerprint = num, want
	return cur, nil
}

// Ensure looks up a template at most ensureExistsLookups times after AlreadyExists answers: the
// first at once, the next after ensureExistsPause, each later one after twice as long (1.75s).
const (
	ensureExistsLookups = 4
	ensureExistsPause   = 250 * time.Millisecond
)

// ErrOwnedByOther marks an object another owner (another resource instance) holds.
var ErrOwnedByOther = errors.New("owned by another node pool")

// FindByName returns the template and the fingerprint of its default version.
func (l LaunchTemplates) FindByName(ctx context.Context, name string) (fleet.LaunchTemplate, error) {
	out, err := l.EC2.DescribeLaunchTemplates(ctx, &ec2.DescribeLaunchTemplatesInput{LaunchTemplateNames: []string{name}})
	if IsCode(err, ErrCodeLaunchTemplateNameNotFound) {
		return fleet.LaunchTemplate{}, &NotFoundError{Kind: "launch template", ID: name, Err: err}
	}
	if err != nil {
		return fleet.LaunchTemplate{}, fmt.Errorf("describing launch template %s: %w", name, err)
	}
	if len(out.LaunchTemplates) == 0 {
		return fleet.LaunchTemplate{}, &NotFoundError{Kind: "launch template", ID: name}
	}
	return l.withContent(ctx, out.LaunchTemplates[0])
}

func (l LaunchTemplates) withContent(ctx context.Context, t ec2types.LaunchTemplate) (fleet.LaunchTemplate, error) {
	lt := fleet.LaunchTemplate{
		ID: aws.ToString(t.LaunchTemplateId), Name: aws.ToString(t.LaunchTemplateName),
		DefaultVersion: aws.ToInt64(t.DefaultVersionNumber), Tags: tagMap(t.Tags),
	}
	v, err := l.EC2.DescribeLaunchTemplateVersions(ctx, &ec2.DescribeLaunchTemplateVersionsInput{
		LaunchTemplateId: t.LaunchTemplateId, Versions: []string{"$Default"},
	})
	if IsCode(err, ErrCodeLaunchTemplateIDNotFound, ErrCodeLaunchTemplateNameNotFound) {
		return fleet.LaunchTemplate{}, &NotFoundError{Kind: "launch template", ID: lt.Name, Err: err}
	}
	if err != nil {
		return fleet.LaunchTemplate{}, fmt.Errorf("reading launch template %s: %w", lt.Name, err)
	}
	if len(v.LaunchTemplateVersions) > 0 && v.LaunchTemplateVersions[0].LaunchTemplateData != nil {
		lt.Fingerprint = contentFromResponse(v.LaunchTemplateVersions[0].LaunchTemplateData).Fingerprint()
	}
	return lt, nil
}

// FindByTags lists the templates carrying every one of the tags (ownership lookup), sorted by
// name.
//
// known holds templates read before (by name): when a listed template still has the same id
// and default version, its content cannot have changed (versions are immutable), so its
// fingerprint is reused instead of reading the version again; a refresh then costs one call.
func (l LaunchTemplates) FindByTags(ctx context.Context, tags map[string]string, known map[string]fleet.LaunchTemplate) ([]fleet.LaunchTemplate, error) {
	listed, err := l.list(ctx, tags)
	if err != nil {
		return nil, err
	}
	return l.withContents(ctx, listed, known)
}

// list is DescribeLaunchTemplates filtered by every tag, all pages.
func (l LaunchTemplates) list(ctx context.Context, tags map[string]string) ([]ec2types.LaunchTemplate, error) {
	p := ec2.NewDescribeLaunchTemplatesPaginator(l.EC2, &ec2.DescribeLaunchTemplatesInput{Filters: tagFilters(tags), MaxResults: aws.Int32(200)})
	var out []ec2types.LaunchTemplate
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("listing launch templates by tag: %w", err)
		}
		out = append(out, page.LaunchTemplates...)
	}
	return out, nil
}

// withContents completes listed templates with their default version's fingerprint, reading
// versions only for templates whose id or default version differ from known (versions are
// immutable, so an unchanged default means unchanged content). Sorted by name.
func (l LaunchTemplates) withContents(ctx context.Context, listed []ec2types.LaunchTemplate, known map[string]fleet.LaunchTemplate) ([]fleet.LaunchTemplate, error) {
	var out []fleet.LaunchTemplate
	for _, t := range listed {
		if k, ok := known[aws.ToString(t.LaunchTemplateName)]; ok && k.Fingerprint != "" &&
			k.ID == aws.ToString(t.LaunchTemplateId) && k.DefaultVersion == aws.ToInt64(t.DefaultVersionNumber) {
			out = append(out, fleet.LaunchTemplate{ID: k.ID, Name: k.Name, DefaultVersion: k.DefaultVersion, Tags: tagMap(t.Tags), Fingerprint: k.Fingerprint})
			continue
		}
		lt, err := l.withContent(ctx, t)
		if errors.Is(err, ErrNotFound) {
			continue // deleted between the two calls
		}
		if err != nil {
			return nil, err
		}
		out = append(out, lt)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// Delete removes a template by id; an already-missing template is not an error.
func (l LaunchTemplates) Delete(ctx context.Context, id string) error {
	_, err := l.EC2.DeleteLaunchTemplate(ctx, &ec2.DeleteLaunchTemplateInput{LaunchTemplateId: aws.String(id)})
	if err == nil || IsNotFound(err) {
		return nil
	}
	return fmt.Errorf("deleting launch template %s: %w", id, err)
}
