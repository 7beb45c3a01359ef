package manifest

import (
	"errors"
	"reflect"
	"testing"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// FuzzRenderEC2NodeClass renders EC2NodeClasses whose free-form strings (tags, user data,
// selector terms, AMI terms, role, kubelet maps, block devices, metadata options) come from the
// fuzzer. Rendering must never panic; it fails only for invalid UTF-8, and otherwise the output
// must parse as YAML into the typed document with the input's values, and generically with every
// string still a string (what Terraform's yamldecode sees).
func FuzzRenderEC2NodeClass(f *testing.F) {
	seeds := [][8]string{
		{"team", "platform", "#!/bin/bash\necho hello\n", "subnet-0abc", "al2023@latest", "KarpenterNodeRole-c", "100Gi", "required"},
		{"Name", "", "", "", "", "", "", ""},
		{"enabled", "true", "yes", "on", "null", "~", "1e3", "0x10"},
		{"a: b", "#x", "[1]", "{a: 1}", "*ref", "&anchor", "!tag", "%YAML"},
		{"multi", "line\nvalue", "MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=\"//\"\r\n\r\n--//--\r\n", "\t", " lead", "trail ", "-", "? "},
		{"unicode", "日本語", "\ufeff", "\u2028", "\u0085", "<powershell>\n</powershell>", "1.5Ti", "optional"},
		{"ctrl", "\x00\x01\x7f", "'\"", "\\", "2001-12-14", "<<", "=", "\n"},
		{"bad", "\xff", "k", "v", "k", "v", "v", "1"},
	}
	for _, s := range seeds {
		f.Add(s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7])
	}
	f.Fuzz(func(t *testing.T, tagKey, tagValue, userData, term, ami, role, quantity, token string) {
		hop := int64(len(token) % 65)
		pods := int32(len(quantity))
		yes := true
		nc := EC2NodeClass{
			Name:        "fuzz",
			Labels:      map[string]string{tagKey: tagValue},
			Annotations: map[string]string{term: userData},
			Spec: EC2NodeClassSpec{
				SubnetSelectorTerms:        []SubnetSelectorTerm{{Tags: map[string]string{tagKey: term}}, {ID: term}},
				SecurityGroupSelectorTerms: []SecurityGroupSelectorTerm{{Name: term}, {Tags: map[string]string{term: tagValue}}},
				AMISelectorTerms:           []AMISelectorTerm{{Alias: ami}, {Name: ami, Owner: role, Tags: map[string]string{ami: quantity}}, {SSMParameter: token}},
				AMIFamily:                  token,
				Role:                       role,
				InstanceProfile:            tagValue,
				UserData:                   userData,
				Tags:                       map[string]string{tagKey: tagValue, "fixed": userData},
				Kubelet: KubeletConfiguration{
					ClusterDNS:              []string{term, quantity},
					MaxPods:                 &pods,
					SystemReserved:          map[string]string{"cpu": quantity},
					KubeReserved:            map[string]string{tagKey: quantity},
					EvictionHard:            map[string]string{"memory.available": quantity},
					EvictionSoft:            map[string]string{term: quantity},
					EvictionSoftGracePeriod: map[string]string{term: token},
				},
				BlockDeviceMappings: []BlockDeviceMapping{{DeviceName: term, RootVolume: &yes, EBS: BlockDevice{
					VolumeSize: quantity, VolumeType: token, KMSKeyID: tagValue, SnapshotID: ami, Encrypted: &yes}}},
				InstanceStorePolicy: token,
				NetworkInterfaces:   []NetworkInterface{{NetworkCardIndex: 0, DeviceIndex: 0, InterfaceType: token}},
				MetadataOptions:     MetadataOptions{HTTPEndpoint: token, HTTPProtocolIPv6: tagValue, HTTPPutResponseHopLimit: &hop, HTTPTokens: token},
			},
		}
		out, err := RenderEC2NodeClass(nc)
		valid := true
		for _, s := range []string{tagKey, tagValue, userData, term, ami, role, quantity, token} {
			valid = valid && utf8.ValidString(s)
		}
		if !valid {
			if !errors.Is(err, errInvalidUTF8) {
				t.Fatalf("invalid UTF-8 input: error %v, want errInvalidUTF8", err)
			}
			return
		}
		if err != nil {
			t.Fatalf("RenderEC2NodeClass: %v", err)
		}
		if again, _ := RenderEC2NodeClass(nc); again != out {
			t.Fatalf("render is not deterministic:\n%s\n---\n%s", out, again)
		}
		recordSeed(out)

		// Typed decode: the values equal the input.
		var doc ec2NodeClassDoc
		if err := yaml.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatalf("output does not parse: %v\n%s", err, out)
		}
		if !reflect.DeepEqual(doc.Spec, nc.Spec) {
			t.Fatalf("typed round trip differs:\n got %#v\nwant %#v\n%s", doc.Spec, nc.Spec, out)
		}
		if doc.APIVersion != EC2NodeClassAPIVersion || doc.Kind != EC2NodeClassKind || doc.Metadata.Name != nc.Name ||
			!reflect.DeepEqual(doc.Metadata.Labels, nc.Labels) || !reflect.DeepEqual(doc.Metadata.Annotations, nc.Annotations) {
			t.Fatalf("header or metadata differs: %#v\n%s", doc, out)
		}

		// Generic decode: strings stay strings, keys included.
		var generic map[string]any
		if err := yaml.Unmarshal([]byte(out), &generic); err != nil {
			t.Fatalf("output does not parse generically: %v\n%s", err, out)
		}
		spec := generic["spec"].(map[string]any)
		checkStringMap(t, "tags", spec["tags"], nc.Spec.Tags, out)
		checkStringMap(t, "metadata labels", generic["metadata"].(map[string]any)["labels"], nc.Labels, out)
		checkStringMap(t, "subnet term tags", spec["subnetSelectorTerms"].([]any)[0].(map[string]any)["tags"], nc.Spec.SubnetSelectorTerms[0].Tags, out)
		checkStringMap(t, "kubelet kubeReserved", spec["kubelet"].(map[string]any)["kubeReserved"], nc.Spec.Kubelet.KubeReserved, out)
		if userData != "" {
			if got, ok := spec["userData"].(string); !ok || got != userData {
				t.Fatalf("userData = %#v, want string %q\n%s", spec["userData"], userData, out)
			}
		}
		if role != "" {
			if got, ok := spec["role"].(string); !ok || got != role {
				t.Fatalf("role = %#v, want string %q\n%s", spec["role"], role, out)
			}
		}
		if quantity != "" {
			if got, ok := spec["blockDeviceMappings"].([]any)[0].(map[string]any)["ebs"].(map[string]any)["volumeSize"].(string); !ok || got != quantity {
				t.Fatalf("volumeSize = %#v, want string %q\n%s", got, quantity, out)
			}
		}
	})
}
