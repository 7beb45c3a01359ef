package launchplan

import (
	"reflect"
	"strings"
	"testing"
)

// A reference carries its class whole: the resolution decodes back to the value it was written
// from, late values included, the same value always gives the same string and fingerprint, and a
// changed resolution changes the fingerprint. A resolution edited by hand is refused.
func TestClassRefRoundTrip(t *testing.T) {
	s := func(v string) *string { return &v }
	v := ClassValue{Name: "general", AMIFamily: "AL2023", Subnets: map[string]ClassSubnet{
		"subnet-a": {Zone: "us-west-2a", ZoneID: "usw2-az1", AvailableIPAddressCount: 4000},
		"subnet-b": {Zone: "us-west-2b", ZoneID: "usw2-az2", AvailableIPAddressCount: 12}},
		SecurityGroupIDs: []string{"sg-1"}, InstanceProfile: s("profile"), UserData: s("#!/bin/bash"), Tags: map[string]string{"team": "a"},
		Hash: s("123"), HashVersion: s("v6"), AMIUnresolved: s("alias left to Karpenter")}
	r := v.Ref()
	if r.Group != EC2NodeClassGroup || r.Kind != EC2NodeClassKind || r.Name != "general" || *r.InstanceProfile != "profile" || r.Tags["team"] != "a" {
		t.Errorf("reference %+v", r)
	}
	if strings.Contains(r.Resolution, "profile") {
		t.Error("a late value is inside the resolution")
	}
	got, err := r.Value()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, v) {
		t.Errorf("round trip:\n got %+v\nwant %+v", got, v)
	}
	if again := v.Ref(); !reflect.DeepEqual(again, r) {
		t.Errorf("two references of one value differ: %+v, %+v", again, r)
	}
	late := v
	late.InstanceProfile, late.Tags = nil, nil
	if late.Ref().Fingerprint != r.Fingerprint {
		t.Error("a late value changed the fingerprint: a class planned before its late values are known would change it")
	}
	moved := v
	moved.Subnets = map[string]ClassSubnet{"subnet-a": v.Subnets["subnet-a"]}
	if moved.Ref().Fingerprint == r.Fingerprint {
		t.Error("a changed resolution kept its fingerprint")
	}
	tampered := r
	tampered.Resolution = moved.Ref().Resolution
	if _, err := tampered.Value(); err == nil {
		t.Error("a resolution that does not match its fingerprint was read")
	}
	t.Logf("resolution of a three-line class: %d characters", len(r.Resolution))
}
