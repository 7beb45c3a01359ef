package awsclient

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/hashicorp/terraform-plugin-log/tflog"
)

// PolicyVersions keeps the AWS managed policies the node-role check reads on disk, beside the
// instance-type catalog. A version of an AWS managed policy (arn:<partition>:iam::aws:policy/…)
// never changes once published (AWS publishes a new version instead), so a version read once is
// the same in every later plan: its document is read from disk instead of calling
// GetPolicyVersion. Which version is the default does change when AWS publishes one, rarely: the
// default version is kept for the catalog cache's TTL (as the instance types are), and GetPolicy
// is asked again once it expires. With both kept, the check's IAM reads are the role's two
// listings alone, one round trip in series instead of three. Customer managed policies are always
// read: one deleted and created again under its name starts over at v1 with another document. It
// is off whenever the catalog cache is (a TTL of 0, no directory).
type PolicyVersions struct {
	Disk *CatalogDisk
	// Endpoint is the IAM endpoint the versions were read from ("" for AWS's own).
	Endpoint string
}

// policyVersionFile is what a cached version holds. A policy's default version is kept in a file
// of its own (Default set, no Document), written at Written.
type policyVersionFile struct {
	Endpoint, ARN, Version, Document string
	Default                          bool      `json:",omitempty"`
	Written                          time.Time `json:",omitzero"`
}

// PolicyVersions is the client's policy-version cache (nil when the catalog cache is off).
func (c *Client) PolicyVersions() *PolicyVersions {
	if !c.CatalogDisk.enabled() {
		return nil
	}
	v := &PolicyVersions{Disk: c.CatalogDisk}
	if ic, ok := c.IAM.(*iam.Client); ok {
		v.Endpoint = aws.ToString(ic.Options().BaseEndpoint)
	}
	return v
}

func (v *PolicyVersions) path(arn, version string) string {
	sum := sha256.Sum256(fmt.Appendf(nil, "%s\x00%s\x00%s", v.Endpoint, arn, version))
	return filepath.Join(v.Disk.Dir, "policy-"+hex.EncodeToString(sum[:12])+".json")
}

// kept reports whether a policy's versions are kept: an AWS managed policy's.
func (v *PolicyVersions) kept(arn string) bool {
	return v != nil && v.Disk.enabled() && strings.Contains(arn, ":iam::aws:policy/")
}

// read returns the document of a policy version seen before.
func (v *PolicyVersions) read(ctx context.Context, arn, version string) (string, bool) {
	if !v.kept(arn) {
		return "", false
	}
	b, err := os.ReadFile(v.path(arn, version))
	if err != nil {
		return "", false
	}
	var f policyVersionFile
	if json.Unmarshal(b, &f) != nil || f.Endpoint != v.Endpoint || f.ARN != arn || f.Version != version || f.Document == "" {
		tflog.Debug(ctx, "policy version cache entry unusable, reading IAM", map[string]any{"arn": arn, "version": version})
		return "", false
	}
	return f.Document, true
}

// defaultPath is the file of a policy's default version.
func (v *PolicyVersions) defaultPath(arn string) string { return v.path(arn, "\x00default") }

// defaultVersion returns the default version of a policy read within the TTL.
func (v *PolicyVersions) defaultVersion(ctx context.Context, arn string) (string, bool) {
	if !v.kept(arn) {
		return "", false
	}
	b, err := os.ReadFile(v.defaultPath(arn))
	if err != nil {
		return "", false
	}
	var f policyVersionFile
	if json.Unmarshal(b, &f) != nil || !f.Default || f.Endpoint != v.Endpoint || f.ARN != arn || f.Version == "" {
		tflog.Debug(ctx, "policy default version cache entry unusable, reading IAM", map[string]any{"arn": arn})
		return "", false
	}
	if age := v.Disk.clock().Sub(f.Written); age < 0 || age >= v.Disk.TTL {
		return "", false
	}
	return f.Version, true
}

// writeDefault keeps a policy's default version with the time it was read.
func (v *PolicyVersions) writeDefault(ctx context.Context, arn, version string) {
	if !v.kept(arn) || version == "" {
		return
	}
	b, err := json.Marshal(policyVersionFile{Endpoint: v.Endpoint, ARN: arn, Version: version, Default: true, Written: v.Disk.clock()})
	if err == nil {
		err = writeFileAtomic(v.defaultPath(arn), b)
	}
	if err != nil {
		tflog.Debug(ctx, "policy default version not written", map[string]any{"arn": arn, "error": err.Error()})
	}
}

// write keeps a policy version's document (atomically; a failure only loses the speed-up).
func (v *PolicyVersions) write(ctx context.Context, arn, version, doc string) {
	if !v.kept(arn) || version == "" || doc == "" {
		return
	}
	b, err := json.Marshal(policyVersionFile{Endpoint: v.Endpoint, ARN: arn, Version: version, Document: doc})
	if err == nil {
		err = writeFileAtomic(v.path(arn, version), b)
	}
	if err != nil {
		tflog.Debug(ctx, "policy version cache not written", map[string]any{"arn": arn, "error": err.Error()})
	}
}
