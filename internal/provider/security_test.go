package provider

import (
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	smithy "github.com/aws/smithy-go"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/nodeplane/terraform-provider-karpenter/internal/acctest"
	"github.com/nodeplane/terraform-provider-karpenter/internal/awsclient"
	"github.com/nodeplane/terraform-provider-karpenter/internal/awsfake"
	"github.com/nodeplane/terraform-provider-karpenter/internal/launchplan"
)

// createLookAlike makes a launch template that looks like one of the pool's (same name
// pattern, same pool, cluster and node class tags) but lacks the provider's managed-by tag.
func createLookAlike(t *testing.T, name string, tags map[string]string) string {
	t.Helper()
	var ts []ec2types.Tag
	for k, v := range tags {
		ts = append(ts, ec2types.Tag{Key: aws.String(k), Value: aws.String(v)})
	}
	out, err := acctest.EC2(t).CreateLaunchTemplate(acctest.Context(t), &ec2.CreateLaunchTemplateInput{
		LaunchTemplateName: aws.String(name),
		LaunchTemplateData: &ec2types.RequestLaunchTemplateData{
			MetadataOptions: &ec2types.LaunchTemplateInstanceMetadataOptionsRequest{HttpTokens: ec2types.LaunchTemplateHttpTokensStateOptional},
			UserData:        aws.String(base64.StdEncoding.EncodeToString([]byte("#!/bin/bash\necho not-managed-by-terraform\n"))),
		},
		TagSpecifications: []ec2types.TagSpecification{{ResourceType: ec2types.ResourceTypeLaunchTemplate, Tags: ts}},
	})
	if err != nil {
		t.Fatalf("creating the look-alike template: %v", err)
	}
	id := aws.ToString(out.LaunchTemplate.LaunchTemplateId)
	t.Cleanup(func() {
		_, _ = acctest.EC2(t).DeleteLaunchTemplate(context.Background(), &ec2.DeleteLaunchTemplateInput{LaunchTemplateId: aws.String(id)})
	})
	return id
}

// expectUntouched fails unless the template still exists with one version, its tags, and the
// data it was created with.
func expectUntouched(t *testing.T, id string, tags map[string]string) error {
	out, err := acctest.EC2(t).DescribeLaunchTemplates(context.Background(), &ec2.DescribeLaunchTemplatesInput{LaunchTemplateIds: []string{id}})
	if err != nil {
		return fmt.Errorf("the look-alike template %s is gone: %w", id, err)
	}
	if len(out.LaunchTemplates) != 1 {
		return fmt.Errorf("the look-alike template %s is gone", id)
	}
	lt := out.LaunchTemplates[0]
	if aws.ToInt64(lt.LatestVersionNumber) != 1 || aws.ToInt64(lt.DefaultVersionNumber) != 1 {
		return fmt.Errorf("the look-alike template %s was written to: latest version %d, default %d",
			id, aws.ToInt64(lt.LatestVersionNumber), aws.ToInt64(lt.DefaultVersionNumber))
	}
	got := tagMapOf(lt.Tags)
	for k, v := range tags {
		if got[k] != v {
			return fmt.Errorf("the look-alike template %s lost tag %s=%s: %v", id, k, v, got)
		}
	}
	if _, ok := got[launchplan.TagManagedBy]; ok {
		return fmt.Errorf("the look-alike template %s was tagged %s", id, launchplan.TagManagedBy)
	}
	v, err := acctest.EC2(t).DescribeLaunchTemplateVersions(context.Background(), &ec2.DescribeLaunchTemplateVersionsInput{
		LaunchTemplateId: aws.String(id), Versions: []string{"$Default"}})
	if err != nil || len(v.LaunchTemplateVersions) != 1 {
		return fmt.Errorf("reading the look-alike template %s: %v", id, err)
	}
	ud, _ := base64.StdEncoding.DecodeString(aws.ToString(v.LaunchTemplateVersions[0].LaunchTemplateData.UserData))
	if !strings.Contains(string(ud), "not-managed-by-terraform") {
		return fmt.Errorf("the look-alike template %s has new user data:\n%s", id, ud)
	}
	return nil
}

func tagMapOf(tags []ec2types.Tag) map[string]string {
	m := map[string]string{}
	for _, t := range tags {
		m[aws.ToString(t.Key)] = aws.ToString(t.Value)
	}
	return m
}

// expectTemplateSecurity reads every template of the pool from EC2 and checks the IMDS options
// and, when classScript is set, that the class's user data is merged with the generated
// NodeConfig as the docs say.
func expectTemplateSecurity(t *testing.T, tokens string, hopLimit int32, classScript string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		a := s.RootModule().Resources[nodePoolRes].Primary.Attributes
		if a["launch_templates.#"] == "" || a["launch_templates.#"] == "0" {
			return fmt.Errorf("no launch templates in state")
		}
		for i := 0; a[fmt.Sprintf("launch_templates.%d.id", i)] != ""; i++ {
			id := a[fmt.Sprintf("launch_templates.%d.id", i)]
			out, err := acctest.EC2(t).DescribeLaunchTemplateVersions(context.Background(), &ec2.DescribeLaunchTemplateVersionsInput{
				LaunchTemplateId: aws.String(id), Versions: []string{"$Default"}})
			if err != nil {
				return err
			}
			d := out.LaunchTemplateVersions[0].LaunchTemplateData
			m := d.MetadataOptions
			if m == nil || string(m.HttpTokens) != tokens || aws.ToInt32(m.HttpPutResponseHopLimit) != hopLimit || m.HttpEndpoint != "enabled" {
				return fmt.Errorf("template %s metadata options %+v, want tokens %s, hop limit %d, endpoint enabled", id, m, tokens, hopLimit)
			}
			if m.InstanceMetadataTags != ec2types.LaunchTemplateInstanceMetadataTagsStateDisabled {
				return fmt.Errorf("template %s exposes instance tags in IMDS: %s", id, m.InstanceMetadataTags)
			}
			ud, _ := base64.StdEncoding.DecodeString(aws.ToString(d.UserData))
			for _, want := range []string{"kind: NodeConfig", "maxPods: ", classScript} {
				if !strings.Contains(string(ud), want) {
					return fmt.Errorf("template %s user data lacks %q:\n%s", id, want, ud)
				}
			}
		}
		return nil
	}
}

// TestAccSecurity_ownershipAndIMDS: a static pool's templates (replicas = 0: templates only)
// default to IMDSv2 with hop limit 1, a class setting changes that, the class's user data is
// merged into the generated one, and a template that looks like the pool's but lacks the
// managed-by tag is neither written to nor deleted.
func TestAccSecurity_ownershipAndIMDS(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	cluster := acctest.RandomName("cluster")
	discoveryNetwork(t, cluster)
	tags := map[string]string{
		launchplan.TagNodePool: "general", launchplan.TagCluster: cluster, launchplan.TagNodeClass: "default", "Name": "look-alike",
	}
	lookAlike := createLookAlike(t, cluster+"/general/0123456789", tags)

	hop2 := `
  metadata_options = {
    http_endpoint               = "enabled"
    http_protocol_ipv6          = "disabled"
    http_put_response_hop_limit = 2
    http_tokens                 = "required"
  }
  user_data = <<-EOT
    #!/bin/bash
    echo class-user-data-marker
  EOT`
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: factories(nil),
		CheckDestroy: func(s *terraform.State) error {
			if err := expectUntouched(t, lookAlike, tags); err != nil {
				return err
			}
			// Only the look-alike is left with the pool's tags.
			out, err := acctest.EC2(t).DescribeLaunchTemplates(context.Background(), &ec2.DescribeLaunchTemplatesInput{Filters: []ec2types.Filter{
				{Name: aws.String("tag:" + launchplan.TagNodePool), Values: []string{"general"}},
				{Name: aws.String("tag:" + launchplan.TagCluster), Values: []string{cluster}},
			}})
			if err != nil {
				return err
			}
			if len(out.LaunchTemplates) != 1 || aws.ToString(out.LaunchTemplates[0].LaunchTemplateId) != lookAlike {
				return fmt.Errorf("after destroy, want only the look-alike %s with the pool's tags, got %d templates", lookAlike, len(out.LaunchTemplates))
			}
			return nil
		},
		Steps: []resource.TestStep{
			{
				Config: staticPoolConfig(cluster, "", m5Static(0)),
				Check: resource.ComposeAggregateTestCheckFunc(
					expectTemplateSecurity(t, "required", 1, ""),
					resource.TestCheckResourceAttr(nodeClassRes, "metadata_options.http_tokens", "required"),
					resource.TestCheckResourceAttr(nodeClassRes, "metadata_options.http_put_response_hop_limit", "1"),
					resource.TestMatchResourceAttr(nodeClassRes, "manifest", capWordsRE("httpPutResponseHopLimit: 1")),
					func(*terraform.State) error { return expectUntouched(t, lookAlike, tags) },
				),
			},
			{
				Config: staticPoolConfig(cluster, hop2, m5Static(0)),
				Check: resource.ComposeAggregateTestCheckFunc(
					expectTemplateSecurity(t, "required", 2, "echo class-user-data-marker"),
					resource.TestCheckResourceAttr(nodeClassRes, "metadata_options.http_put_response_hop_limit", "2"),
					func(*terraform.State) error { return expectUntouched(t, lookAlike, tags) },
				),
			},
		},
	})
}

// TestAccSecurity_credentialsNotLogged applies with literal access_key / secret_key in the
// provider block and DEBUG logging of Terraform and the provider into a file: neither value may
// appear in the log or in state. Not parallel: it sets the process's log variables.
func TestAccSecurity_credentialsNotLogged(t *testing.T) {
	acctest.PreCheck(t)
	const accessKey, secretKey = "AKIALEAKCHECK7Q3Z9XW", "leak-check-S3cr3t/9f3b2e71c4d8a6e0b5"
	logFile := filepath.Join(t.TempDir(), "terraform-debug.log")
	t.Setenv("TF_ACC_LOG_PATH", logFile) // the provider under test and the Terraform CLI both log here
	t.Setenv("TF_ACC_LOG", "DEBUG")      // the CLI's level (the provider sink logs at TRACE with a path)
	t.Setenv("TF_LOG", "DEBUG")
	// The test harness itself logs each step's configuration (with the keys, as written) at
	// TRACE: silence that subsystem, which is not Terraform's nor the provider's.
	t.Setenv("TF_LOG_SDK_HELPER_RESOURCE", "OFF")
	cluster := acctest.RandomName("cluster")
	discoveryNetwork(t, cluster)

	// A static pool (0 replicas): it writes launch templates, so the log holds mutating calls too.
	cfg := strings.Replace(staticPoolConfig(cluster, "", m5Static(0)), "  region = ",
		fmt.Sprintf("  access_key = %q\n  secret_key = %q\n  region = ", accessKey, secretKey), 1)
	if !strings.Contains(cfg, secretKey) {
		t.Fatal("the credentials are not in the provider block")
	}
	noSecretsIn := func(what, text string) error {
		var leaked []string
		for _, v := range []string{accessKey, secretKey} {
			if n := strings.Count(text, v); n > 0 {
				leaked = append(leaked, fmt.Sprintf("%q (%d times)", v, n))
			}
		}
		if len(leaked) > 0 {
			return fmt.Errorf("%s contains the credentials %s", what, strings.Join(leaked, ", "))
		}
		return nil
	}
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: factories(nil),
		CheckDestroy: func(*terraform.State) error {
			return expectNoPoolTemplates(t, cluster, "general")
		},
		Steps: []resource.TestStep{{
			Config: cfg,
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttrSet(nodePoolRes, "launch_templates.0.id"),
				func(s *terraform.State) error {
					var b strings.Builder
					for name, rs := range s.RootModule().Resources {
						b.WriteString(name + "\n")
						for k, v := range rs.Primary.Attributes {
							b.WriteString(k + "=" + v + "\n")
						}
					}
					return noSecretsIn("state", b.String())
				},
			),
		}},
	})

	raw, err := os.ReadFile(logFile)
	if err != nil {
		t.Fatalf("reading the debug log: %v", err)
	}
	log := string(raw)
	// The log really holds both sides at debug level, or the check below proves nothing.
	for _, want := range []string{"Terraform version", "configuring AWS client", "CreateLaunchTemplate"} {
		if !strings.Contains(log, want) {
			t.Errorf("the debug log (%d bytes) lacks %q: logging was not captured", len(raw), want)
		}
	}
	if err := noSecretsIn("the debug log", log); err != nil {
		t.Error(err)
	}
	t.Logf("debug log: %d bytes, %d lines, no credential in it", len(raw), strings.Count(log, "\n"))
}

// TestAccSecurity_sameNameTemplateNotAdopted: a template with exactly the name a static pool
// plans, but without the managed-by tag, is not adopted: the apply fails naming it, and the
// template is neither written to nor deleted.
func TestAccSecurity_sameNameTemplateNotAdopted(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	cluster := acctest.RandomName("cluster")
	discoveryNetwork(t, cluster)
	cfg := staticPoolConfig(cluster, "", m5Static(0))
	tags := map[string]string{launchplan.TagNodePool: "general", launchplan.TagCluster: cluster, "Name": "same-name"}
	var name, lookAlike string
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: factories(nil),
		CheckDestroy: func(*terraform.State) error {
			if lookAlike == "" {
				return fmt.Errorf("the look-alike was never created")
			}
			return expectUntouched(t, lookAlike, tags)
		},
		Steps: []resource.TestStep{
			{
				// Learn the planned name, then give it back.
				Config: cfg,
				Check: func(s *terraform.State) error {
					a := s.RootModule().Resources[nodePoolRes].Primary.Attributes
					if a["launch_templates.#"] != "1" {
						return fmt.Errorf("want one launch template, got %s", a["launch_templates.#"])
					}
					name = a["launch_templates.0.name"]
					return nil
				},
			},
			{Config: cfg, Destroy: true},
			{
				PreConfig:   func() { lookAlike = createLookAlike(t, name, tags) },
				Config:      cfg,
				ExpectError: capWordsRE("not created by terraform-provider-karpenter"),
			},
		},
	})
}

func plannedTemplate() launchplan.LaunchTemplate {
	return launchplan.LaunchTemplate{
		Name: "c/general/0123456789", MaxPods: 29, UserData: "x",
		MetadataOptions: launchplan.MetadataOptions{HTTPEndpoint: "enabled", HTTPProtocolIPv6: "disabled", HTTPTokens: "required", HTTPPutResponseHopLimit: 1},
		Tags:            map[string]string{launchplan.TagNodePool: "general", launchplan.TagManagedBy: launchplan.ManagedBy},
	}
}

// Ensure does not adopt a same-name template without the managed-by tag: no write at all.
func TestEnsure_refusesTemplatesItDidNotCreate(t *testing.T) {
	// The planned name is taken by a template of other content.
	f := &awsfake.EC2{
		LaunchTemplates: []ec2types.LaunchTemplate{{
			LaunchTemplateId: aws.String("lt-0lookalike"), LaunchTemplateName: aws.String("c/general/0123456789"), DefaultVersionNumber: aws.Int64(1),
			Tags: []ec2types.Tag{{Key: aws.String(launchplan.TagNodePool), Value: aws.String("general")}},
		}},
		LaunchTemplateVersions: []ec2types.LaunchTemplateVersion{{LaunchTemplateId: aws.String("lt-0lookalike"), VersionNumber: aws.Int64(1),
			LaunchTemplateData: &ec2types.ResponseLaunchTemplateData{ImageId: aws.String("ami-other")}}},
	}
	_, err := awsclient.LaunchTemplates{EC2: f}.Ensure(context.Background(), plannedTemplate())
	if err == nil || !strings.Contains(err.Error(), "not created by") || !strings.Contains(err.Error(), "lt-0lookalike") {
		t.Fatalf("want a refusal naming the template, got %v", err)
	}
	for _, op := range []string{"CreateLaunchTemplate", "CreateLaunchTemplateVersion", "ModifyLaunchTemplate", "DeleteLaunchTemplate"} {
		if f.Calls(op) > 0 {
			t.Errorf("%s called on a template the provider does not own", op)
		}
	}
	// With the tag, the same template is the provider's: a content change writes a version.
	f.LaunchTemplates[0].Tags = append(f.LaunchTemplates[0].Tags, ec2types.Tag{Key: aws.String(launchplan.TagManagedBy), Value: aws.String(launchplan.ManagedBy)})
	if _, err := (awsclient.LaunchTemplates{EC2: f}).Ensure(context.Background(), plannedTemplate()); err != nil {
		t.Fatal(err)
	}
	if f.Calls("CreateLaunchTemplateVersion") != 1 || f.Calls("ModifyLaunchTemplate") != 1 {
		t.Errorf("owned template not updated: %d new versions, %d modifies", f.Calls("CreateLaunchTemplateVersion"), f.Calls("ModifyLaunchTemplate"))
	}
}

// Ensure converges on AlreadyExists by looking the template up again, a bounded number of times
// with pauses, not in a tight create/describe loop.
func TestEnsure_alreadyExistsIsBounded(t *testing.T) {
	// Every name lookup answers NotFound (the fake holds no template) and every create AlreadyExists.
	f := &awsfake.EC2{Fail: map[string]error{"CreateLaunchTemplate": &smithy.GenericAPIError{Code: awsclient.ErrCodeLaunchTemplateExists, Message: "exists"}}}
	start := time.Now()
	_, err := awsclient.LaunchTemplates{EC2: f}.Ensure(context.Background(), plannedTemplate())
	if awsclient.ErrCode(err) != awsclient.ErrCodeLaunchTemplateExists || !strings.Contains(err.Error(), "cannot be found by name") {
		t.Fatalf("want the AlreadyExists error after the bounded lookups, got %v", err)
	}
	if f.Calls("CreateLaunchTemplate") != 5 || f.Calls("DescribeLaunchTemplates") != 5 {
		t.Errorf("%d creates and %d lookups, want 5 and 5", f.Calls("CreateLaunchTemplate"), f.Calls("DescribeLaunchTemplates"))
	}
	if d := time.Since(start); d < 1500*time.Millisecond || d > 5*time.Second {
		t.Errorf("the lookups took %s, want about 1.75s of pauses", d)
	}
}
