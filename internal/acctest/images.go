package acctest

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/aws-sdk-go-v2/service/ssm"
	ssmtypes "github.com/aws/aws-sdk-go-v2/service/ssm/types"
)

var (
	builtinMu     sync.Mutex
	builtinImages = map[string]string{}
)

// BuiltinImage is an image of the emulator's own catalog with the given EC2 architecture
// (x86_64, arm64): the lowest id of the amazon-owned images, the same in every run of one
// LocalStack version. Tests whose AMI terms must resolve at plan (`id` terms) and whose nodes
// must launch use it; tests that need images with names, tags or dates of their own copy one
// (CopyImage keeps the architecture).
func BuiltinImage(t testing.TB, arch string) string {
	t.Helper()
	PreCheck(t)
	id, err := LookupBuiltinImage(arch)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// LookupBuiltinImage is BuiltinImage for callers without a test at hand (config builders);
// it expects the emulator to be up.
func LookupBuiltinImage(arch string) (string, error) {
	builtinMu.Lock()
	defer builtinMu.Unlock()
	if id, ok := builtinImages[arch]; ok {
		return id, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := sdkEC2().DescribeImages(ctx, &ec2.DescribeImagesInput{Owners: []string{"amazon"}, Filters: []ec2types.Filter{
		{Name: aws.String("architecture"), Values: []string{arch}}, {Name: aws.String("state"), Values: []string{"available"}},
	}})
	if err != nil {
		return "", fmt.Errorf("listing the emulator's %s images: %w", arch, err)
	}
	var ids []string
	for _, i := range out.Images {
		if string(i.Architecture) == arch { // the emulator may ignore the filter
			ids = append(ids, aws.ToString(i.ImageId))
		}
	}
	if len(ids) == 0 {
		return "", fmt.Errorf("the emulator has no %s image of its own", arch)
	}
	builtinImages[arch] = slices.Min(ids)
	return builtinImages[arch], nil
}

// CopyImage registers an image of the test's own: a copy of the emulator's image of arch,
// with a name and tags, deleted (deregistered) when the test ends.
func CopyImage(t testing.TB, arch, name string, tags map[string]string) string {
	t.Helper()
	c := EC2(t)
	ctx := Context(t)
	out, err := c.CopyImage(ctx, &ec2.CopyImageInput{SourceImageId: aws.String(BuiltinImage(t, arch)), SourceRegion: aws.String(Region()), Name: aws.String(name)})
	if err != nil {
		t.Fatalf("CopyImage: %v", err)
	}
	id := aws.ToString(out.ImageId)
	t.Cleanup(func() {
		if _, err := c.DeregisterImage(context.Background(), &ec2.DeregisterImageInput{ImageId: aws.String(id)}); err != nil {
			t.Logf("deregistering image %s: %v", id, err)
		}
	})
	if len(tags) > 0 {
		var ts []ec2types.Tag
		for _, k := range slices.Sorted(maps.Keys(tags)) {
			ts = append(ts, ec2types.Tag{Key: aws.String(k), Value: aws.String(tags[k])})
		}
		if _, err := c.CreateTags(ctx, &ec2.CreateTagsInput{Resources: []string{id}, Tags: ts}); err != nil {
			t.Fatalf("tagging image %s: %v", id, err)
		}
	}
	return id
}

// PutParameter writes an SSM String parameter for the test and deletes it when the test ends.
// (The emulator reserves /aws/... names, so AWS's public parameters cannot be seeded.)
func PutParameter(t testing.TB, name, value string) {
	t.Helper()
	PreCheck(t)
	noteFixture("parameter", name)
	c := ssm.NewFromConfig(sdkConfig())
	if _, err := c.PutParameter(Context(t), &ssm.PutParameterInput{Name: aws.String(name), Value: aws.String(value),
		Type: ssmtypes.ParameterTypeString, Overwrite: aws.Bool(true)}); err != nil {
		t.Fatalf("PutParameter %s: %v", name, err)
	}
	t.Cleanup(func() {
		if _, err := c.DeleteParameter(context.Background(), &ssm.DeleteParameterInput{Name: aws.String(name)}); err != nil {
			t.Logf("deleting parameter %s: %v", name, err)
		}
	})
}
