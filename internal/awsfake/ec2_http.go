package awsfake

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	smithy "github.com/aws/smithy-go"
)

const ec2XMLNS = "http://ec2.amazonaws.com/doc/2016-11-15/"

// ServeHTTP serves the EC2 query protocol (a form-encoded POST, an XML answer) for CreateFleet,
// RunInstances, DescribeCapacityReservations, DescribePlacementGroups,
// DescribeSpotPriceHistory, DescribeNetworkInterfaces and GetSubnetCidrReservations, so the fake can stand behind HTTP plumbing under test
// (internal/acctest's fault proxy, and its stubs for what LocalStack lacks). The request goes
// through the same call as an SDK call: recorded, hooked, failed as configured. Another action
// answers InvalidAction. A failure answers EC2's XML error
// document: 503 for Unavailable and RequestLimitExceeded, 500 for InternalError and an error
// that is no API error, 400 otherwise.
func (f *EC2) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.requests++
	reqID := fmt.Sprintf("req-%d", f.requests)
	f.mu.Unlock()
	b, err := io.ReadAll(r.Body)
	if err != nil {
		writeEC2Error(w, reqID, err)
		return
	}
	v, err := url.ParseQuery(string(b))
	if err != nil {
		writeEC2Error(w, reqID, apiError("MalformedQueryString", "%v", err))
		return
	}
	var answer any
	switch action := v.Get("Action"); action {
	case "CreateFleet":
		in := createFleetInput(v)
		if in.Type != ec2types.FleetTypeInstant {
			err = apiError("InvalidParameterValue", "awsfake: only instant fleets are implemented")
			break
		}
		var out *ec2.CreateFleetOutput
		if out, err = f.CreateFleet(r.Context(), in); err == nil {
			answer = createFleetXML(reqID, out)
		}
	case "RunInstances":
		var out *ec2.RunInstancesOutput
		if out, err = f.RunInstances(r.Context(), runInstancesInput(v)); err == nil {
			answer = runInstancesXML(reqID, out)
		}
	case "DescribeCapacityReservations", "DescribePlacementGroups", "DescribeSpotPriceHistory":
		answer, err = f.serveDescribe(r.Context(), reqID, action, v)
	case "DescribeNetworkInterfaces", "GetSubnetCidrReservations":
		answer, err = f.serveInterfaces(r.Context(), reqID, action, v)
	default:
		err = apiError("InvalidAction", "awsfake: the HTTP front does not implement %q", action)
	}
	if err != nil {
		writeEC2Error(w, reqID, err)
		return
	}
	w.Header().Set("Content-Type", "text/xml;charset=UTF-8")
	_, _ = io.WriteString(w, xml.Header)
	_ = xml.NewEncoder(w).Encode(answer)
}

func writeEC2Error(w http.ResponseWriter, reqID string, err error) {
	code, status := "InternalError", http.StatusInternalServerError
	var ae smithy.APIError
	if errors.As(err, &ae) {
		code = ae.ErrorCode()
		switch code {
		case "Unavailable", "RequestLimitExceeded":
			status = http.StatusServiceUnavailable
		case "InternalError":
		default:
			status = http.StatusBadRequest
		}
	}
	msg := err.Error()
	if ae != nil {
		msg = ae.ErrorMessage()
	}
	w.Header().Set("Content-Type", "text/xml;charset=UTF-8")
	w.WriteHeader(status)
	_ = xml.NewEncoder(w).Encode(struct {
		XMLName   xml.Name `xml:"Response"`
		Code      string   `xml:"Errors>Error>Code"`
		Message   string   `xml:"Errors>Error>Message"`
		RequestID string   `xml:"RequestID"`
	}{Code: code, Message: msg, RequestID: reqID})
}

// indexed are the prefixes of a query list: prefix.1., prefix.2., ... while the form has them.
func indexed(v url.Values, prefix string) []string {
	var out []string
	for n := 1; ; n++ {
		p := fmt.Sprintf("%s.%d.", prefix, n)
		found := false
		for k := range v {
			if strings.HasPrefix(k, p) {
				found = true
				break
			}
		}
		if !found {
			return out
		}
		out = append(out, p)
	}
}

func optional(v url.Values, key string) *string {
	if !v.Has(key) {
		return nil
	}
	return aws.String(v.Get(key))
}

func optionalInt32(v url.Values, key string) *int32 {
	n, err := strconv.ParseInt(v.Get(key), 10, 32)
	if err != nil {
		return nil
	}
	return aws.Int32(int32(n))
}

func tagSpecifications(v url.Values) []ec2types.TagSpecification {
	var out []ec2types.TagSpecification
	for _, p := range indexed(v, "TagSpecification") {
		s := ec2types.TagSpecification{ResourceType: ec2types.ResourceType(v.Get(p + "ResourceType"))}
		for _, t := range indexed(v, p+"Tag") {
			s.Tags = append(s.Tags, ec2types.Tag{Key: optional(v, t+"Key"), Value: optional(v, t+"Value")})
		}
		out = append(out, s)
	}
	return out
}

func createFleetInput(v url.Values) *ec2.CreateFleetInput {
	in := &ec2.CreateFleetInput{Type: ec2types.FleetType(v.Get("Type")), ClientToken: optional(v, "ClientToken"), TagSpecifications: tagSpecifications(v)}
	if t := optionalInt32(v, "TargetCapacitySpecification.TotalTargetCapacity"); t != nil {
		in.TargetCapacitySpecification = &ec2types.TargetCapacitySpecificationRequest{TotalTargetCapacity: t,
			DefaultTargetCapacityType: ec2types.DefaultTargetCapacityType(v.Get("TargetCapacitySpecification.DefaultTargetCapacityType"))}
	}
	for _, p := range indexed(v, "LaunchTemplateConfigs") {
		c := ec2types.FleetLaunchTemplateConfigRequest{LaunchTemplateSpecification: &ec2types.FleetLaunchTemplateSpecificationRequest{
			LaunchTemplateId: optional(v, p+"LaunchTemplateSpecification.LaunchTemplateId"), LaunchTemplateName: optional(v, p+"LaunchTemplateSpecification.LaunchTemplateName"),
			Version: optional(v, p+"LaunchTemplateSpecification.Version"),
		}}
		for _, o := range indexed(v, p+"Overrides") {
			ov := ec2types.FleetLaunchTemplateOverridesRequest{InstanceType: ec2types.InstanceType(v.Get(o + "InstanceType")),
				SubnetId: optional(v, o+"SubnetId"), AvailabilityZone: optional(v, o+"AvailabilityZone"), ImageId: optional(v, o+"ImageId")}
			if p, err := strconv.ParseFloat(v.Get(o+"Priority"), 64); err == nil {
				ov.Priority = aws.Float64(p)
			}
			c.Overrides = append(c.Overrides, ov)
		}
		in.LaunchTemplateConfigs = append(in.LaunchTemplateConfigs, c)
	}
	return in
}

func runInstancesInput(v url.Values) *ec2.RunInstancesInput {
	in := &ec2.RunInstancesInput{MinCount: optionalInt32(v, "MinCount"), MaxCount: optionalInt32(v, "MaxCount"), ClientToken: optional(v, "ClientToken"),
		InstanceType: ec2types.InstanceType(v.Get("InstanceType")), ImageId: optional(v, "ImageId"), SubnetId: optional(v, "SubnetId"),
		TagSpecifications: tagSpecifications(v)}
	if id, name := optional(v, "LaunchTemplate.LaunchTemplateId"), optional(v, "LaunchTemplate.LaunchTemplateName"); id != nil || name != nil {
		in.LaunchTemplate = &ec2types.LaunchTemplateSpecification{LaunchTemplateId: id, LaunchTemplateName: name, Version: optional(v, "LaunchTemplate.Version")}
	}
	return in
}

type fleetSpecXML struct {
	ID      string `xml:"launchTemplateId,omitempty"`
	Name    string `xml:"launchTemplateName,omitempty"`
	Version string `xml:"version,omitempty"`
}

type fleetOverridesXML struct {
	InstanceType     string `xml:"instanceType,omitempty"`
	SubnetID         string `xml:"subnetId,omitempty"`
	AvailabilityZone string `xml:"availabilityZone,omitempty"`
	ImageID          string `xml:"imageId,omitempty"`
	Priority         string `xml:"priority,omitempty"`
}

type fleetTemplateXML struct {
	Spec      fleetSpecXML      `xml:"launchTemplateSpecification"`
	Overrides fleetOverridesXML `xml:"overrides"`
}

func fleetTemplate(r *ec2types.LaunchTemplateAndOverridesResponse) *fleetTemplateXML {
	if r == nil {
		return nil
	}
	out := &fleetTemplateXML{}
	if s := r.LaunchTemplateSpecification; s != nil {
		out.Spec = fleetSpecXML{ID: aws.ToString(s.LaunchTemplateId), Name: aws.ToString(s.LaunchTemplateName), Version: aws.ToString(s.Version)}
	}
	if o := r.Overrides; o != nil {
		out.Overrides = fleetOverridesXML{InstanceType: string(o.InstanceType), SubnetID: aws.ToString(o.SubnetId),
			AvailabilityZone: aws.ToString(o.AvailabilityZone), ImageID: aws.ToString(o.ImageId)}
		if o.Priority != nil {
			out.Overrides.Priority = strconv.FormatFloat(*o.Priority, 'f', -1, 64)
		}
	}
	return out
}

type fleetErrorXML struct {
	Template     *fleetTemplateXML `xml:"launchTemplateAndOverrides,omitempty"`
	Lifecycle    string            `xml:"lifecycle,omitempty"`
	ErrorCode    string            `xml:"errorCode"`
	ErrorMessage string            `xml:"errorMessage"`
}

type fleetInstanceXML struct {
	Template     *fleetTemplateXML `xml:"launchTemplateAndOverrides,omitempty"`
	Lifecycle    string            `xml:"lifecycle,omitempty"`
	InstanceIDs  []string          `xml:"instanceIds>item"`
	InstanceType string            `xml:"instanceType,omitempty"`
}

type createFleetResponseXML struct {
	XMLName   xml.Name           `xml:"CreateFleetResponse"`
	Xmlns     string             `xml:"xmlns,attr"`
	RequestID string             `xml:"requestId"`
	FleetID   string             `xml:"fleetId"`
	Errors    []fleetErrorXML    `xml:"errorSet>item"`
	Instances []fleetInstanceXML `xml:"fleetInstanceSet>item"`
}

func createFleetXML(reqID string, out *ec2.CreateFleetOutput) createFleetResponseXML {
	x := createFleetResponseXML{Xmlns: ec2XMLNS, RequestID: reqID, FleetID: aws.ToString(out.FleetId)}
	for _, e := range out.Errors {
		x.Errors = append(x.Errors, fleetErrorXML{fleetTemplate(e.LaunchTemplateAndOverrides), string(e.Lifecycle), aws.ToString(e.ErrorCode), aws.ToString(e.ErrorMessage)})
	}
	for _, i := range out.Instances {
		x.Instances = append(x.Instances, fleetInstanceXML{fleetTemplate(i.LaunchTemplateAndOverrides), string(i.Lifecycle), i.InstanceIds, string(i.InstanceType)})
	}
	return x
}

type tagXML struct {
	Key   string `xml:"key"`
	Value string `xml:"value"`
}

type instanceXML struct {
	InstanceID   string   `xml:"instanceId"`
	ImageID      string   `xml:"imageId,omitempty"`
	StateCode    int32    `xml:"instanceState>code"`
	StateName    string   `xml:"instanceState>name"`
	InstanceType string   `xml:"instanceType,omitempty"`
	LaunchTime   string   `xml:"launchTime,omitempty"`
	Zone         string   `xml:"placement>availabilityZone"`
	SubnetID     string   `xml:"subnetId,omitempty"`
	VpcID        string   `xml:"vpcId,omitempty"`
	Tags         []tagXML `xml:"tagSet>item"`
}

type runInstancesResponseXML struct {
	XMLName       xml.Name      `xml:"RunInstancesResponse"`
	Xmlns         string        `xml:"xmlns,attr"`
	RequestID     string        `xml:"requestId"`
	ReservationID string        `xml:"reservationId"`
	Instances     []instanceXML `xml:"instancesSet>item"`
}

func runInstancesXML(reqID string, out *ec2.RunInstancesOutput) runInstancesResponseXML {
	x := runInstancesResponseXML{Xmlns: ec2XMLNS, RequestID: reqID, ReservationID: aws.ToString(out.ReservationId)}
	for _, i := range out.Instances {
		ix := instanceXML{InstanceID: aws.ToString(i.InstanceId), ImageID: aws.ToString(i.ImageId), InstanceType: string(i.InstanceType),
			SubnetID: aws.ToString(i.SubnetId), VpcID: aws.ToString(i.VpcId)}
		if i.State != nil {
			ix.StateCode, ix.StateName = aws.ToInt32(i.State.Code), string(i.State.Name)
		}
		if i.LaunchTime != nil {
			ix.LaunchTime = i.LaunchTime.UTC().Format(time.RFC3339)
		}
		if i.Placement != nil {
			ix.Zone = aws.ToString(i.Placement.AvailabilityZone)
		}
		for _, t := range i.Tags {
			ix.Tags = append(ix.Tags, tagXML{aws.ToString(t.Key), aws.ToString(t.Value)})
		}
		x.Instances = append(x.Instances, ix)
	}
	return x
}
