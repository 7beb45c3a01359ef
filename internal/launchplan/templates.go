package launchplan

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash"
	"maps"
	"slices"
	"strconv"

	"github.com/nodeplane/terraform-provider-karpenter/internal/capacity"
	"github.com/nodeplane/terraform-provider-karpenter/internal/nodeclass"
)

// ManagedBy is the TagManagedBy value.
const ManagedBy = nodeclass.ManagedBy

// InterfaceTypeEFA is the ENA+EFA interface type Karpenter uses for EFA node classes without
// configured network interfaces.
const InterfaceTypeEFA = "efa"

// maxLaunchTemplateName is EC2's limit on launch-template names.
const maxLaunchTemplateName = 128

// hashLength is how many hex characters of the content hash a launch-template name carries.
const hashLength = 10

// launchTemplates groups the types as Karpenter does, by AMI, max pods and interface layout
// (the EFA count; with configured interfaces the layout is the same for every type), and builds
// one template per group, in the order of each group's first type.
func (b *builder) launchTemplates(types []*eligible) []LaunchTemplate {
	if b.in.Class.AutoMode != nil {
		return nil // EKS Auto Mode makes its own, which the plan cannot know
	}
	// reserved is the kubelet's reserved resources resolved for the type, when the class has
	// v1.15 expressions there (they differ by type, as max pods does); "" otherwise.
	type key struct {
		ami, maxPods, efa int
		reserved          string
	}
	index := map[key]int{}
	var lts []LaunchTemplate
	userData := map[[2]string]string{} // by max pods and reserved resources: nothing else differs per group
	for _, t := range types {
		kubelet, reserved := b.kubeletFor(t)
		k := key{t.ami, t.res.MaxPods, t.efa, reserved}
		g, ok := index[k]
		if !ok {
			udKey := [2]string{strconv.Itoa(k.maxPods), reserved}
			ud, ok := userData[udKey]
			if !ok {
				ud = b.userData(k.maxPods, kubelet)
				userData[udKey] = ud
			}
			g = len(lts)
			index[k] = g
			lts = append(lts, b.launchTemplate(k.ami, k.maxPods, k.efa, ud))
		}
		t.group = g
		lts[g].InstanceTypes = append(lts[g].InstanceTypes, t.it.Name)
	}
	for _, lt := range lts {
		if len(lt.NetworkInterfaces) > 1 && b.in.Class.AssociatePublicIPAddress != nil {
			b.warn(SummaryPublicIPInterfaces, pathPool, "node class %q sets associate_public_ip_address and launch template %s has %d network interfaces; "+
				"EC2 rejects a public IP with several interfaces (InvalidParameterCombination)",
				b.in.Class.Name, lt.Name, len(lt.NetworkInterfaces))
		}
	}
	return lts
}

func (b *builder) launchTemplate(ami, maxPods, efa int, userData string) LaunchTemplate {
	c := b.in.Class
	lt := LaunchTemplate{
		MaxPods:            maxPods,
		NetworkInterfaces:  b.interfaces(efa),
		UserData:           userData,
		MetadataOptions:    c.MetadataOptions,
		BlockDevices:       blockDevices(c.BlockDevices, b.family),
		DetailedMonitoring: c.DetailedMonitoring,
		InstanceProfile:    c.InstanceProfile,
		Tags:               b.tags(),
	}
	if ami >= 0 {
		lt.ImageID = c.AMIs[ami].ID
	}
	lt.Name = b.templateName(groupHash(b.in, lt, ami))
	return lt
}

// interfaces is the launch template's network-interface layout: the configured interfaces; or,
// for an EFA class, one "efa" interface per network card up to the type's EFA count; or a single
// primary interface. efa-only interfaces get neither prefixes nor a public IP, which EC2 rejects.
func (b *builder) interfaces(efa int) []Interface {
	c := b.in.Class
	full := func(card, device int, typ string) Interface {
		return Interface{
			NetworkCardIndex:         card,
			DeviceIndex:              device,
			InterfaceType:            typ,
			SecurityGroupIDs:         slices.Clone(c.SecurityGroupIDs),
			AssociatePublicIPAddress: clonePtr(c.AssociatePublicIPAddress),
			IPv4PrefixCount:          clonePtr(c.IPPrefixCount),
		}
	}
	switch {
	case b.ifaces != nil:
		out := make([]Interface, 0, len(b.ifaces))
		for _, f := range b.ifaces {
			if f.InterfaceType == capacity.InterfaceTypeEFAOnly {
				out = append(out, Interface{
					NetworkCardIndex: f.NetworkCardIndex,
					DeviceIndex:      f.DeviceIndex,
					InterfaceType:    f.InterfaceType,
					SecurityGroupIDs: slices.Clone(c.SecurityGroupIDs),
				})
				continue
			}
			out = append(out, full(f.NetworkCardIndex, f.DeviceIndex, f.InterfaceType))
		}
		return out
	case c.EFA && efa > 0:
		out := make([]Interface, efa)
		for i := range out {
			out[i] = full(i, min(i, 1), InterfaceTypeEFA)
		}
		return out
	default:
		return []Interface{full(0, 0, capacity.InterfaceTypeInterface)}
	}
}

// tags are the class tags plus the ownership tags, which win.
func (b *builder) tags() map[string]string {
	t := make(map[string]string, len(b.in.Class.Tags)+4)
	maps.Copy(t, b.in.Class.Tags)
	t[TagNodePool] = b.in.PoolName
	t[TagNodeClass] = b.in.Class.Name
	if b.in.ClusterName != "" {
		t[TagCluster] = b.in.ClusterName
	}
	t[TagManagedBy] = ManagedBy
	if b.in.OwnerID != "" {
		t[TagOwner] = b.in.OwnerID
	}
	return t
}

// blockDevices are the class's mappings, or the AMI family's defaults when it has none.
func blockDevices(class []BlockDevice, family string) []BlockDevice {
	if len(class) > 0 {
		out := make([]BlockDevice, len(class))
		for i, d := range class {
			d.DeleteOnTermination = clonePtr(d.DeleteOnTermination)
			d.Encrypted = clonePtr(d.Encrypted)
			d.IOPS = clonePtr(d.IOPS)
			d.Throughput = clonePtr(d.Throughput)
			out[i] = d
		}
		return out
	}
	ebs := func(device string, gib int) BlockDevice {
		return BlockDevice{DeviceName: device, Encrypted: ptr(true), VolumeSizeGiB: gib, VolumeType: "gp3"}
	}
	switch {
	case family == capacity.FamilyBottlerocket:
		return []BlockDevice{ebs("/dev/xvda", 4), ebs("/dev/xvdb", 20)}
	case capacity.IsWindows(family):
		return []BlockDevice{ebs("/dev/sda1", 50)}
	case family == capacity.FamilyCustom:
		return nil // the AMI's own mappings
	default: // AL2, AL2023
		return []BlockDevice{ebs("/dev/xvda", 20)}
	}
}

// templateName is <cluster or "karpenter">/<pool>/<hash>; an over-long pool name is shortened,
// which keeps names unique because the hash covers the pool.
func (b *builder) templateName(h string) string {
	prefix := b.in.ClusterName
	if prefix == "" {
		prefix = "karpenter"
	}
	pool := b.in.PoolName
	if over := len(prefix) + len(pool) + len(h) + 2 - maxLaunchTemplateName; over > 0 {
		pool = pool[:max(0, len(pool)-over)]
	}
	return prefix + "/" + pool + "/" + h
}

// groupHash is the first hashLength hex characters of SHA-256 over a canonical encoding of the
// group's identity: pool, cluster, max pods and interface layout (card, device, type). Content
// that can change under a group (user data, security groups, image, metadata, block devices,
// tags) is left out on purpose: a change there writes a new version of the same template
// rather than a new template, so ids stay stable and history stays in EC2. The leading version
// string changes if the encoding ever does.
func groupHash(in Input, lt LaunchTemplate, ami int) string {
	e := encoder{h: sha256.New()}
	e.str("launchplan/v2")
	e.str(in.PoolName)
	e.str(in.ClusterName)
	// The image's requirement set (not its id: a new image release is a new version of the same
	// template), when the class has several: a class with one image keeps its names.
	if amis := in.Class.AMIs; ami >= 0 && len(amis) > 1 {
		e.str(amis[ami].Architecture)
		e.str(string(amis[ami].Variant))
	}
	e.int(lt.MaxPods)
	e.int(len(lt.NetworkInterfaces))
	for _, f := range lt.NetworkInterfaces {
		e.int(f.NetworkCardIndex)
		e.int(f.DeviceIndex)
		e.str(f.InterfaceType)
	}
	return hex.EncodeToString(e.h.Sum(nil))[:hashLength]
}

// encoder writes length-prefixed values into a hash.
type encoder struct{ h hash.Hash }

func (e encoder) int(v int) {
	var buf [binary.MaxVarintLen64]byte
	e.h.Write(buf[:binary.PutVarint(buf[:], int64(v))])
}

func (e encoder) str(s string) {
	e.int(len(s))
	e.h.Write([]byte(s))
}

func ptr[T any](v T) *T { return &v }

func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}
