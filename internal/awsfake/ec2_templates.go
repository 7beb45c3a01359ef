package awsfake

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
)

var templateFields = fields[ec2types.LaunchTemplate]{
	"launch-template-name": func(t ec2types.LaunchTemplate) []string { return str(t.LaunchTemplateName) },
}

func templateTags(t ec2types.LaunchTemplate) []ec2types.Tag { return t.Tags }

// template is the index of the template named by id or name; EC2's NotFound error otherwise.
func (f *EC2) template(id, name *string) (int, error) {
	for i, t := range f.LaunchTemplates {
		if (id != nil && aws.ToString(t.LaunchTemplateId) == *id) || (id == nil && name != nil && aws.ToString(t.LaunchTemplateName) == *name) {
			return i, nil
		}
	}
	switch {
	case id != nil:
		return -1, apiError("InvalidLaunchTemplateId.NotFound", "The specified launch template, with template ID %s, does not exist.", *id)
	case name != nil:
		return -1, apiError("InvalidLaunchTemplateName.NotFoundException", "The specified launch template, with template name %s, does not exist.", *name)
	}
	return -1, apiError("MissingParameter", "The request must contain the parameter LaunchTemplateId or LaunchTemplateName")
}

// version resolves "$Default", "$Latest" or a number of the template at index i.
func (f *EC2) version(i int, v string) (ec2types.LaunchTemplateVersion, error) {
	t := f.LaunchTemplates[i]
	var n int64
	switch v {
	case "$Default", "":
		n = aws.ToInt64(t.DefaultVersionNumber)
	case "$Latest":
		n = aws.ToInt64(t.LatestVersionNumber)
		if n == 0 { // set up by a test without it
			n = aws.ToInt64(t.DefaultVersionNumber)
		}
	default:
		var err error
		if n, err = strconv.ParseInt(v, 10, 64); err != nil {
			return ec2types.LaunchTemplateVersion{}, apiError("InvalidLaunchTemplateId.VersionNotFound", "Could not find launch template version %s", v)
		}
	}
	for _, lv := range f.LaunchTemplateVersions {
		if aws.ToString(lv.LaunchTemplateId) == aws.ToString(t.LaunchTemplateId) && aws.ToInt64(lv.VersionNumber) == n {
			lv.DefaultVersion = aws.Bool(n == aws.ToInt64(t.DefaultVersionNumber))
			return lv, nil
		}
	}
	return ec2types.LaunchTemplateVersion{}, apiError("InvalidLaunchTemplateId.VersionNotFound", "Could not find launch template version %d of %s", n, aws.ToString(t.LaunchTemplateId))
}

// responseData is what EC2 answers for template data written as req: the fields both shapes
// name alike, which are all the provider writes.
func responseData(req *ec2types.RequestLaunchTemplateData) *ec2types.ResponseLaunchTemplateData {
	out := &ec2types.ResponseLaunchTemplateData{}
	if req == nil {
		return out
	}
	b, err := json.Marshal(req)
	if err == nil {
		err = json.Unmarshal(b, out)
	}
	if err != nil {
		panic(fmt.Sprintf("awsfake: launch template data: %v", err))
	}
	return out
}

func tagsFor(specs []ec2types.TagSpecification, rt ec2types.ResourceType) []ec2types.Tag {
	var out []ec2types.Tag
	for _, s := range specs {
		if s.ResourceType == rt {
			out = append(out, s.Tags...)
		}
	}
	return out
}

// CreateLaunchTemplate creates a template (tags: the launch-template tag specification) with
// version 1 as its default; InvalidLaunchTemplateName.AlreadyExistsException when the name is
// taken.
func (f *EC2) CreateLaunchTemplate(ctx context.Context, in *ec2.CreateLaunchTemplateInput, _ ...func(*ec2.Options)) (*ec2.CreateLaunchTemplateOutput, error) {
	return serve(ctx, &f.recorder, f.levers(), "CreateLaunchTemplate", in, func(in *ec2.CreateLaunchTemplateInput) (*ec2.CreateLaunchTemplateOutput, error) {
		name := aws.ToString(in.LaunchTemplateName)
		if name == "" {
			return nil, apiError("MissingParameter", "The request must contain the parameter LaunchTemplateName")
		}
		if slices.ContainsFunc(f.LaunchTemplates, func(t ec2types.LaunchTemplate) bool { return aws.ToString(t.LaunchTemplateName) == name }) {
			return nil, apiError("InvalidLaunchTemplateName.AlreadyExistsException", "Launch template name already in use.")
		}
		now := f.clock()
		t := ec2types.LaunchTemplate{
			LaunchTemplateId: aws.String(f.nextID("lt")), LaunchTemplateName: aws.String(name), CreateTime: &now,
			DefaultVersionNumber: aws.Int64(1), LatestVersionNumber: aws.Int64(1),
			Tags: tagsFor(in.TagSpecifications, ec2types.ResourceTypeLaunchTemplate),
		}
		f.LaunchTemplates = append(f.LaunchTemplates, t)
		f.LaunchTemplateVersions = append(f.LaunchTemplateVersions, ec2types.LaunchTemplateVersion{
			LaunchTemplateId: t.LaunchTemplateId, LaunchTemplateName: t.LaunchTemplateName, VersionNumber: aws.Int64(1),
			VersionDescription: in.VersionDescription, LaunchTemplateData: responseData(in.LaunchTemplateData), CreateTime: &now,
		})
		return &ec2.CreateLaunchTemplateOutput{LaunchTemplate: &t}, nil
	})
}

// CreateLaunchTemplateVersion adds the next version to the template (by id or name). The
// default version stays.
func (f *EC2) CreateLaunchTemplateVersion(ctx context.Context, in *ec2.CreateLaunchTemplateVersionInput, _ ...func(*ec2.Options)) (*ec2.CreateLaunchTemplateVersionOutput, error) {
	return serve(ctx, &f.recorder, f.levers(), "CreateLaunchTemplateVersion", in, func(in *ec2.CreateLaunchTemplateVersionInput) (*ec2.CreateLaunchTemplateVersionOutput, error) {
		if in.SourceVersion != nil {
			panic("awsfake: CreateLaunchTemplateVersion: SourceVersion is not implemented")
		}
		i, err := f.template(in.LaunchTemplateId, in.LaunchTemplateName)
		if err != nil {
			return nil, err
		}
		t := &f.LaunchTemplates[i]
		n := aws.ToInt64(t.DefaultVersionNumber)
		for _, lv := range f.LaunchTemplateVersions {
			if aws.ToString(lv.LaunchTemplateId) == aws.ToString(t.LaunchTemplateId) {
				n = max(n, aws.ToInt64(lv.VersionNumber))
			}
		}
		now := f.clock()
		v := ec2types.LaunchTemplateVersion{
			LaunchTemplateId: t.LaunchTemplateId, LaunchTemplateName: t.LaunchTemplateName, VersionNumber: aws.Int64(n + 1),
			VersionDescription: in.VersionDescription, LaunchTemplateData: responseData(in.LaunchTemplateData), CreateTime: &now, DefaultVersion: aws.Bool(false),
		}
		t.LatestVersionNumber = aws.Int64(n + 1)
		f.LaunchTemplateVersions = append(f.LaunchTemplateVersions, v)
		return &ec2.CreateLaunchTemplateVersionOutput{LaunchTemplateVersion: &v}, nil
	})
}

// ModifyLaunchTemplate makes DefaultVersion (a number or "$Latest") the template's default.
func (f *EC2) ModifyLaunchTemplate(ctx context.Context, in *ec2.ModifyLaunchTemplateInput, _ ...func(*ec2.Options)) (*ec2.ModifyLaunchTemplateOutput, error) {
	return serve(ctx, &f.recorder, f.levers(), "ModifyLaunchTemplate", in, func(in *ec2.ModifyLaunchTemplateInput) (*ec2.ModifyLaunchTemplateOutput, error) {
		i, err := f.template(in.LaunchTemplateId, in.LaunchTemplateName)
		if err != nil {
			return nil, err
		}
		if in.DefaultVersion != nil {
			v, err := f.version(i, *in.DefaultVersion)
			if err != nil {
				return nil, err
			}
			f.LaunchTemplates[i].DefaultVersionNumber = v.VersionNumber
		}
		t := f.LaunchTemplates[i]
		return &ec2.ModifyLaunchTemplateOutput{LaunchTemplate: &t}, nil
	})
}

// DescribeLaunchTemplates answers the templates asked for (LaunchTemplateIds,
// LaunchTemplateNames; EC2's NotFound codes for one it does not hold) that match the filters.
func (f *EC2) DescribeLaunchTemplates(ctx context.Context, in *ec2.DescribeLaunchTemplatesInput, _ ...func(*ec2.Options)) (*ec2.DescribeLaunchTemplatesOutput, error) {
	return serve(ctx, &f.recorder, f.levers(), "DescribeLaunchTemplates", in, func(in *ec2.DescribeLaunchTemplatesInput) (*ec2.DescribeLaunchTemplatesOutput, error) {
		objs, err := byIDs(f.LaunchTemplates, in.LaunchTemplateIds, func(t ec2types.LaunchTemplate) string { return aws.ToString(t.LaunchTemplateId) },
			"InvalidLaunchTemplateId.NotFound", "launch template ID")
		if err == nil {
			objs, err = byIDs(objs, in.LaunchTemplateNames, func(t ec2types.LaunchTemplate) string { return aws.ToString(t.LaunchTemplateName) },
				"InvalidLaunchTemplateName.NotFoundException", "launch template name")
		}
		if err != nil {
			return nil, err
		}
		items, next, err := page("DescribeLaunchTemplates", selectObjects("DescribeLaunchTemplates", objs, in.Filters, templateTags, templateFields),
			f.PageSize, in.MaxResults, in.NextToken)
		return &ec2.DescribeLaunchTemplatesOutput{LaunchTemplates: items, NextToken: next}, err
	})
}

// DescribeLaunchTemplateVersions answers versions of the template (by id or name; every
// template when neither is given): those asked for ("$Default", "$Latest", numbers;
// InvalidLaunchTemplateId.VersionNotFound for one it does not hold), or all of them.
func (f *EC2) DescribeLaunchTemplateVersions(ctx context.Context, in *ec2.DescribeLaunchTemplateVersionsInput, _ ...func(*ec2.Options)) (*ec2.DescribeLaunchTemplateVersionsOutput, error) {
	return serve(ctx, &f.recorder, f.levers(), "DescribeLaunchTemplateVersions", in, func(in *ec2.DescribeLaunchTemplateVersionsInput) (*ec2.DescribeLaunchTemplateVersionsOutput, error) {
		if in.MinVersion != nil || in.MaxVersion != nil || len(in.Filters) > 0 {
			panic("awsfake: DescribeLaunchTemplateVersions: MinVersion, MaxVersion and filters are not implemented")
		}
		var templates []int
		if in.LaunchTemplateId != nil || in.LaunchTemplateName != nil {
			i, err := f.template(in.LaunchTemplateId, in.LaunchTemplateName)
			if err != nil {
				return nil, err
			}
			templates = []int{i}
		} else {
			for i := range f.LaunchTemplates {
				templates = append(templates, i)
			}
		}
		var out []ec2types.LaunchTemplateVersion
		for _, i := range templates {
			if len(in.Versions) == 0 {
				for _, lv := range f.LaunchTemplateVersions {
					if aws.ToString(lv.LaunchTemplateId) == aws.ToString(f.LaunchTemplates[i].LaunchTemplateId) {
						lv.DefaultVersion = aws.Bool(aws.ToInt64(lv.VersionNumber) == aws.ToInt64(f.LaunchTemplates[i].DefaultVersionNumber))
						out = append(out, lv)
					}
				}
				continue
			}
			for _, v := range in.Versions {
				lv, err := f.version(i, v)
				if err != nil {
					return nil, err
				}
				out = append(out, lv)
			}
		}
		items, next, err := page("DescribeLaunchTemplateVersions", out, f.PageSize, in.MaxResults, in.NextToken)
		return &ec2.DescribeLaunchTemplateVersionsOutput{LaunchTemplateVersions: items, NextToken: next}, err
	})
}

// DeleteLaunchTemplate deletes the template (by id or name) and its versions.
func (f *EC2) DeleteLaunchTemplate(ctx context.Context, in *ec2.DeleteLaunchTemplateInput, _ ...func(*ec2.Options)) (*ec2.DeleteLaunchTemplateOutput, error) {
	return serve(ctx, &f.recorder, f.levers(), "DeleteLaunchTemplate", in, func(in *ec2.DeleteLaunchTemplateInput) (*ec2.DeleteLaunchTemplateOutput, error) {
		i, err := f.template(in.LaunchTemplateId, in.LaunchTemplateName)
		if err != nil {
			return nil, err
		}
		t := f.LaunchTemplates[i]
		f.LaunchTemplates = slices.Delete(f.LaunchTemplates, i, i+1)
		f.LaunchTemplateVersions = slices.DeleteFunc(f.LaunchTemplateVersions, func(lv ec2types.LaunchTemplateVersion) bool {
			return aws.ToString(lv.LaunchTemplateId) == aws.ToString(t.LaunchTemplateId)
		})
		return &ec2.DeleteLaunchTemplateOutput{LaunchTemplate: &t}, nil
	})
}
