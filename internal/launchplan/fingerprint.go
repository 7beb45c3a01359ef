package launchplan

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"sort"
)

// Tags a launch template writes on its instances: the template's name and the fingerprint of
// its content, so a static pool can tell which nodes run content the plan no longer has.
const (
	TagLaunchTemplateName  = "karpenter.nodeplane.io/launch-template"
	TagTemplateFingerprint = "karpenter.nodeplane.io/template-fingerprint"
)

// TemplateContent is the canonical, comparable form of launch-template data: the adapter
// writes a planned template's content in this form and reads EC2's answer back into it, so a
// template changed outside Terraform shows as another fingerprint. It leaves the tag
// specifications out: LocalStack (moto) injects an extra entry into them on read, and the
// instance tags carry the fingerprint itself.
//
// Field names and JSON keys are part of the fingerprint that states and instance tags record:
// renaming one changes every fingerprint.
type TemplateContent struct {
	ImageID            string               `json:"image,omitempty"`
	UserData           string               `json:"user_data,omitempty"` // base64, as EC2 stores it
	Interfaces         []ContentInterface   `json:"interfaces,omitempty"`
	HTTPEndpoint       string               `json:"http_endpoint,omitempty"`
	HTTPProtocolIPv6   string               `json:"http_ipv6,omitempty"`
	HTTPTokens         string               `json:"http_tokens,omitempty"`
	HopLimit           int32                `json:"hop_limit,omitempty"`
	BlockDevices       []ContentBlockDevice `json:"block_devices,omitempty"`
	DetailedMonitoring bool                 `json:"monitoring,omitempty"`
	InstanceProfile    string               `json:"instance_profile,omitempty"`
}

// ContentInterface is one network interface of TemplateContent.
type ContentInterface struct {
	Card, Device int32
	Type         string
	Groups       []string
	PublicIP     *bool
	Prefixes     *int32
}

// ContentBlockDevice is one block device mapping of TemplateContent.
type ContentBlockDevice struct {
	Device              string
	Size                int32
	Type                string
	Encrypted           *bool
	DeleteOnTermination *bool
	IOPS, Throughput    *int32
	KMSKeyID, Snapshot  string
}

// Fingerprint is a hash of the content, independent of the order of interfaces and groups.
func (c TemplateContent) Fingerprint() string {
	c.Interfaces = append([]ContentInterface(nil), c.Interfaces...)
	for i := range c.Interfaces {
		c.Interfaces[i].Groups = append([]string(nil), c.Interfaces[i].Groups...)
		sort.Strings(c.Interfaces[i].Groups)
	}
	sort.Slice(c.Interfaces, func(i, j int) bool {
		a, b := c.Interfaces[i], c.Interfaces[j]
		if a.Card != b.Card {
			return a.Card < b.Card
		}
		return a.Device < b.Device
	})
	b, _ := json.Marshal(c) // plain strings, numbers and pointers to them: never fails
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:16])
}

// Content is the canonical form of a planned template.
func (lt LaunchTemplate) Content() TemplateContent {
	c := TemplateContent{
		ImageID:            lt.ImageID,
		HTTPEndpoint:       lt.MetadataOptions.HTTPEndpoint,
		HTTPProtocolIPv6:   lt.MetadataOptions.HTTPProtocolIPv6,
		HTTPTokens:         lt.MetadataOptions.HTTPTokens,
		HopLimit:           int32(lt.MetadataOptions.HTTPPutResponseHopLimit),
		DetailedMonitoring: lt.DetailedMonitoring,
		InstanceProfile:    lt.InstanceProfile,
	}
	if lt.UserData != "" {
		c.UserData = base64.StdEncoding.EncodeToString([]byte(lt.UserData))
	}
	for _, ni := range lt.NetworkInterfaces {
		c.Interfaces = append(c.Interfaces, ContentInterface{
			Card: int32(ni.NetworkCardIndex), Device: int32(ni.DeviceIndex), Type: ni.InterfaceType,
			Groups: append([]string(nil), ni.SecurityGroupIDs...), PublicIP: ni.AssociatePublicIPAddress, Prefixes: int32Of(ni.IPv4PrefixCount),
		})
	}
	for _, b := range lt.BlockDevices {
		c.BlockDevices = append(c.BlockDevices, ContentBlockDevice{
			Device: b.DeviceName, Size: int32(b.VolumeSizeGiB), Type: b.VolumeType, Encrypted: b.Encrypted,
			DeleteOnTermination: b.DeleteOnTermination, IOPS: int32Of(b.IOPS), Throughput: int32Of(b.Throughput),
			KMSKeyID: b.KMSKeyID, Snapshot: b.SnapshotID,
		})
	}
	return c
}

// Fingerprint of a planned template, comparable with the fingerprint of what EC2 holds.
func (lt LaunchTemplate) Fingerprint() string { return lt.Content().Fingerprint() }

func int32Of(p *int) *int32 {
	if p == nil {
		return nil
	}
	v := int32(*p)
	return &v
}
