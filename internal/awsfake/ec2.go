package awsfake

import (
	"context"
	"slices"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
)

// EC2 is the fake EC2 API: every call of awsclient.EC2API and awsclient.SpotPriceAPI, plus
// RunInstances, answered from the objects it holds. Describe calls apply EC2's filters (a
// filter name it does not implement panics), fail on an explicit id it does not hold with EC2's
// NotFound code, and paginate (PageSize, MaxResults). Launch templates keep their versions;
// CreateFleet and RunInstances launch running instances at once, tagged from the template and
// the request; TerminateInstances ends them at once (they stay listed as terminated, as in EC2
// for a while). Client tokens are recorded, not honoured: like LocalStack, every CreateFleet
// launches (internal/acctest's fault proxy adds EC2's idempotency where a test needs it).
//
// Its zero value holds nothing. The objects are plain SDK types a test may set up and inspect
// directly, between calls. ServeHTTP serves the EC2 query protocol for a few operations.
type EC2 struct {
	Subnets                []ec2types.Subnet
	SecurityGroups         []ec2types.SecurityGroup
	SecurityGroupRules     []ec2types.SecurityGroupRule
	InstanceTypes          []ec2types.InstanceTypeInfo
	Offerings              []ec2types.InstanceTypeOffering
	Images                 []ec2types.Image
	CapacityReservations   []ec2types.CapacityReservation
	PlacementGroups        []ec2types.PlacementGroup
	SpotPrices             []ec2types.SpotPrice
	LaunchTemplates        []ec2types.LaunchTemplate
	LaunchTemplateVersions []ec2types.LaunchTemplateVersion
	Instances              []ec2types.Instance
	NetworkInterfaces      []ec2types.NetworkInterface
	SubnetCidrReservations []ec2types.SubnetCidrReservation

	// Fail makes an operation ("DescribeSecurityGroupRules") answer the error, every call.
	Fail map[string]error
	// FailNext queues errors for the next calls of an operation, one per call.
	FailNext map[string][]error
	// Hook sees every call first (see Hook).
	Hook Hook
	// PageSize bounds the pages of an operation ("DescribeInstanceTypes": 100) below MaxResults.
	PageSize map[string]int

	recorder
}

func (f *EC2) levers() levers { return levers{fail: f.Fail, failNext: f.FailNext, hook: f.Hook} }

func subnetTags(s ec2types.Subnet) []ec2types.Tag                   { return s.Tags }
func groupTags(g ec2types.SecurityGroup) []ec2types.Tag             { return g.Tags }
func ruleTags(r ec2types.SecurityGroupRule) []ec2types.Tag          { return r.Tags }
func imageTags(i ec2types.Image) []ec2types.Tag                     { return i.Tags }
func reservationTags(r ec2types.CapacityReservation) []ec2types.Tag { return r.Tags }
func placementTags(g ec2types.PlacementGroup) []ec2types.Tag        { return g.Tags }

var subnetFields = fields[ec2types.Subnet]{
	"subnet-id":            func(s ec2types.Subnet) []string { return str(s.SubnetId) },
	"vpc-id":               func(s ec2types.Subnet) []string { return str(s.VpcId) },
	"availability-zone":    func(s ec2types.Subnet) []string { return str(s.AvailabilityZone) },
	"availability-zone-id": func(s ec2types.Subnet) []string { return str(s.AvailabilityZoneId) },
	"cidr-block":           func(s ec2types.Subnet) []string { return str(s.CidrBlock) },
	"state":                func(s ec2types.Subnet) []string { return enum(s.State) },
}

// DescribeSubnets answers the subnets asked for (SubnetIds; InvalidSubnetID.NotFound for one it
// does not hold) that match the filters.
func (f *EC2) DescribeSubnets(ctx context.Context, in *ec2.DescribeSubnetsInput, _ ...func(*ec2.Options)) (*ec2.DescribeSubnetsOutput, error) {
	return serve(ctx, &f.recorder, f.levers(), "DescribeSubnets", in, func(in *ec2.DescribeSubnetsInput) (*ec2.DescribeSubnetsOutput, error) {
		objs, err := byIDs(f.Subnets, in.SubnetIds, func(s ec2types.Subnet) string { return aws.ToString(s.SubnetId) }, "InvalidSubnetID.NotFound", "subnet ID")
		if err != nil {
			return nil, err
		}
		items, next, err := page("DescribeSubnets", selectObjects("DescribeSubnets", objs, in.Filters, subnetTags, subnetFields), f.PageSize, in.MaxResults, in.NextToken)
		return &ec2.DescribeSubnetsOutput{Subnets: items, NextToken: next}, err
	})
}

var groupFields = fields[ec2types.SecurityGroup]{
	"group-id":    func(g ec2types.SecurityGroup) []string { return str(g.GroupId) },
	"group-name":  func(g ec2types.SecurityGroup) []string { return str(g.GroupName) },
	"vpc-id":      func(g ec2types.SecurityGroup) []string { return str(g.VpcId) },
	"description": func(g ec2types.SecurityGroup) []string { return str(g.Description) },
	"owner-id":    func(g ec2types.SecurityGroup) []string { return str(g.OwnerId) },
}

// DescribeSecurityGroups answers the groups asked for (GroupIds, GroupNames; InvalidGroup.NotFound
// for one it does not hold) that match the filters.
func (f *EC2) DescribeSecurityGroups(ctx context.Context, in *ec2.DescribeSecurityGroupsInput, _ ...func(*ec2.Options)) (*ec2.DescribeSecurityGroupsOutput, error) {
	return serve(ctx, &f.recorder, f.levers(), "DescribeSecurityGroups", in, func(in *ec2.DescribeSecurityGroupsInput) (*ec2.DescribeSecurityGroupsOutput, error) {
		objs, err := byIDs(f.SecurityGroups, in.GroupIds, func(g ec2types.SecurityGroup) string { return aws.ToString(g.GroupId) }, "InvalidGroup.NotFound", "security group")
		if err == nil {
			objs, err = byIDs(objs, in.GroupNames, func(g ec2types.SecurityGroup) string { return aws.ToString(g.GroupName) }, "InvalidGroup.NotFound", "security group")
		}
		if err != nil {
			return nil, err
		}
		items, next, err := page("DescribeSecurityGroups", selectObjects("DescribeSecurityGroups", objs, in.Filters, groupTags, groupFields), f.PageSize, in.MaxResults, in.NextToken)
		for i := range items {
			f.withPermissions(&items[i])
		}
		return &ec2.DescribeSecurityGroupsOutput{SecurityGroups: items, NextToken: next}, err
	})
}

// withPermissions sets a described group's IpPermissions and IpPermissionsEgress from the
// SecurityGroupRules of the group, as EC2 shows one set of rules both ways (one permission per
// rule; EC2 groups a protocol and port range's peers into one). A group with no rules in
// SecurityGroupRules keeps the permissions it was set up with.
func (f *EC2) withPermissions(g *ec2types.SecurityGroup) {
	var in, out []ec2types.IpPermission
	for _, r := range f.SecurityGroupRules {
		if aws.ToString(r.GroupId) != aws.ToString(g.GroupId) {
			continue
		}
		p := ec2types.IpPermission{IpProtocol: r.IpProtocol, FromPort: r.FromPort, ToPort: r.ToPort}
		switch {
		case r.CidrIpv4 != nil:
			p.IpRanges = []ec2types.IpRange{{CidrIp: r.CidrIpv4, Description: r.Description}}
		case r.CidrIpv6 != nil:
			p.Ipv6Ranges = []ec2types.Ipv6Range{{CidrIpv6: r.CidrIpv6, Description: r.Description}}
		case r.PrefixListId != nil:
			p.PrefixListIds = []ec2types.PrefixListId{{PrefixListId: r.PrefixListId, Description: r.Description}}
		case r.ReferencedGroupInfo != nil:
			p.UserIdGroupPairs = []ec2types.UserIdGroupPair{{GroupId: r.ReferencedGroupInfo.GroupId, UserId: r.ReferencedGroupInfo.UserId,
				Description: r.Description}}
		}
		if aws.ToBool(r.IsEgress) {
			out = append(out, p)
		} else {
			in = append(in, p)
		}
	}
	if in != nil || out != nil {
		g.IpPermissions, g.IpPermissionsEgress = in, out
	}
}

var ruleFields = fields[ec2types.SecurityGroupRule]{
	"group-id":               func(r ec2types.SecurityGroupRule) []string { return str(r.GroupId) },
	"security-group-rule-id": func(r ec2types.SecurityGroupRule) []string { return str(r.SecurityGroupRuleId) },
}

// DescribeSecurityGroupRules answers the rules asked for (SecurityGroupRuleIds) that match the
// filters (group-id: the rules of those groups).
func (f *EC2) DescribeSecurityGroupRules(ctx context.Context, in *ec2.DescribeSecurityGroupRulesInput, _ ...func(*ec2.Options)) (*ec2.DescribeSecurityGroupRulesOutput, error) {
	return serve(ctx, &f.recorder, f.levers(), "DescribeSecurityGroupRules", in, func(in *ec2.DescribeSecurityGroupRulesInput) (*ec2.DescribeSecurityGroupRulesOutput, error) {
		objs, err := byIDs(f.SecurityGroupRules, in.SecurityGroupRuleIds, func(r ec2types.SecurityGroupRule) string { return aws.ToString(r.SecurityGroupRuleId) },
			"InvalidSecurityGroupRuleId.NotFound", "security group rule")
		if err != nil {
			return nil, err
		}
		items, next, err := page("DescribeSecurityGroupRules", selectObjects("DescribeSecurityGroupRules", objs, in.Filters, ruleTags, ruleFields), f.PageSize, in.MaxResults, in.NextToken)
		return &ec2.DescribeSecurityGroupRulesOutput{SecurityGroupRules: items, NextToken: next}, err
	})
}

var typeFields = fields[ec2types.InstanceTypeInfo]{
	"instance-type": func(t ec2types.InstanceTypeInfo) []string { return enum(t.InstanceType) },
}

// DescribeInstanceTypes answers the instance types asked for (InstanceTypes; InvalidInstanceType
// for one it does not hold) that match the filters.
func (f *EC2) DescribeInstanceTypes(ctx context.Context, in *ec2.DescribeInstanceTypesInput, _ ...func(*ec2.Options)) (*ec2.DescribeInstanceTypesOutput, error) {
	return serve(ctx, &f.recorder, f.levers(), "DescribeInstanceTypes", in, func(in *ec2.DescribeInstanceTypesInput) (*ec2.DescribeInstanceTypesOutput, error) {
		asked := make([]string, len(in.InstanceTypes))
		for i, t := range in.InstanceTypes {
			asked[i] = string(t)
		}
		objs, err := byIDs(f.InstanceTypes, asked, func(t ec2types.InstanceTypeInfo) string { return string(t.InstanceType) }, "InvalidInstanceType", "instance type")
		if err != nil {
			return nil, err
		}
		items, next, err := page("DescribeInstanceTypes", selectObjects("DescribeInstanceTypes", objs, in.Filters, nil, typeFields), f.PageSize, in.MaxResults, in.NextToken)
		return &ec2.DescribeInstanceTypesOutput{InstanceTypes: items, NextToken: next}, err
	})
}

var offeringFields = fields[ec2types.InstanceTypeOffering]{
	"instance-type": func(o ec2types.InstanceTypeOffering) []string { return enum(o.InstanceType) },
	"location":      func(o ec2types.InstanceTypeOffering) []string { return str(o.Location) },
}

// DescribeInstanceTypeOfferings answers the offerings of the LocationType asked for (an offering
// without a LocationType is of every type) that match the filters.
func (f *EC2) DescribeInstanceTypeOfferings(ctx context.Context, in *ec2.DescribeInstanceTypeOfferingsInput, _ ...func(*ec2.Options)) (*ec2.DescribeInstanceTypeOfferingsOutput, error) {
	return serve(ctx, &f.recorder, f.levers(), "DescribeInstanceTypeOfferings", in, func(in *ec2.DescribeInstanceTypeOfferingsInput) (*ec2.DescribeInstanceTypeOfferingsOutput, error) {
		var objs []ec2types.InstanceTypeOffering
		for _, o := range f.Offerings {
			if in.LocationType == "" || o.LocationType == "" || o.LocationType == in.LocationType {
				objs = append(objs, o)
			}
		}
		items, next, err := page("DescribeInstanceTypeOfferings", selectObjects("DescribeInstanceTypeOfferings", objs, in.Filters, nil, offeringFields),
			f.PageSize, in.MaxResults, in.NextToken)
		return &ec2.DescribeInstanceTypeOfferingsOutput{InstanceTypeOfferings: items, NextToken: next}, err
	})
}

var imageFields = fields[ec2types.Image]{
	"image-id":     func(i ec2types.Image) []string { return str(i.ImageId) },
	"name":         func(i ec2types.Image) []string { return str(i.Name) },
	"state":        func(i ec2types.Image) []string { return enum(i.State) },
	"owner-id":     func(i ec2types.Image) []string { return str(i.OwnerId) },
	"owner-alias":  func(i ec2types.Image) []string { return str(i.ImageOwnerAlias) },
	"architecture": func(i ec2types.Image) []string { return enum(i.Architecture) },
}

// DescribeImages answers the images asked for (ImageIds; InvalidAMIID.NotFound for one it does
// not hold) of the owners asked for (owner id or alias) that match the filters.
// IncludeDeprecated is not applied: the fake's images are all current.
func (f *EC2) DescribeImages(ctx context.Context, in *ec2.DescribeImagesInput, _ ...func(*ec2.Options)) (*ec2.DescribeImagesOutput, error) {
	return serve(ctx, &f.recorder, f.levers(), "DescribeImages", in, func(in *ec2.DescribeImagesInput) (*ec2.DescribeImagesOutput, error) {
		objs, err := byIDs(f.Images, in.ImageIds, func(i ec2types.Image) string { return aws.ToString(i.ImageId) }, "InvalidAMIID.NotFound", "image id")
		if err != nil {
			return nil, err
		}
		if len(in.Owners) > 0 {
			objs = slices.DeleteFunc(slices.Clone(objs), func(i ec2types.Image) bool {
				return !slices.Contains(in.Owners, aws.ToString(i.OwnerId)) && !slices.Contains(in.Owners, aws.ToString(i.ImageOwnerAlias))
			})
		}
		items, next, err := page("DescribeImages", selectObjects("DescribeImages", objs, in.Filters, imageTags, imageFields), f.PageSize, in.MaxResults, in.NextToken)
		return &ec2.DescribeImagesOutput{Images: items, NextToken: next}, err
	})
}

var reservationFields = fields[ec2types.CapacityReservation]{
	"state":                   func(r ec2types.CapacityReservation) []string { return enum(r.State) },
	"owner-id":                func(r ec2types.CapacityReservation) []string { return str(r.OwnerId) },
	"instance-match-criteria": func(r ec2types.CapacityReservation) []string { return enum(r.InstanceMatchCriteria) },
	"instance-type":           func(r ec2types.CapacityReservation) []string { return str(r.InstanceType) },
	"availability-zone":       func(r ec2types.CapacityReservation) []string { return str(r.AvailabilityZone) },
	"reservation-type":        func(r ec2types.CapacityReservation) []string { return enum(r.ReservationType) },
}

// DescribeCapacityReservations answers the reservations asked for (CapacityReservationIds;
// InvalidCapacityReservationId.NotFound for one it does not hold, and
// InvalidParameterCombination with MaxResults, as EC2) that match the filters.
func (f *EC2) DescribeCapacityReservations(ctx context.Context, in *ec2.DescribeCapacityReservationsInput, _ ...func(*ec2.Options)) (*ec2.DescribeCapacityReservationsOutput, error) {
	return serve(ctx, &f.recorder, f.levers(), "DescribeCapacityReservations", in, func(in *ec2.DescribeCapacityReservationsInput) (*ec2.DescribeCapacityReservationsOutput, error) {
		if len(in.CapacityReservationIds) > 0 && in.MaxResults != nil {
			return nil, apiError("InvalidParameterCombination", "The parameter CapacityReservationIds cannot be used with the parameter MaxResults")
		}
		objs, err := byIDs(f.CapacityReservations, in.CapacityReservationIds, func(r ec2types.CapacityReservation) string { return aws.ToString(r.CapacityReservationId) },
			"InvalidCapacityReservationId.NotFound", "capacity reservation")
		if err != nil {
			return nil, err
		}
		items, next, err := page("DescribeCapacityReservations", selectObjects("DescribeCapacityReservations", objs, in.Filters, reservationTags, reservationFields),
			f.PageSize, in.MaxResults, in.NextToken)
		return &ec2.DescribeCapacityReservationsOutput{CapacityReservations: items, NextToken: next}, err
	})
}

var placementFields = fields[ec2types.PlacementGroup]{
	"group-name": func(g ec2types.PlacementGroup) []string { return str(g.GroupName) },
	"group-id":   func(g ec2types.PlacementGroup) []string { return str(g.GroupId) },
	"state":      func(g ec2types.PlacementGroup) []string { return enum(g.State) },
	"strategy":   func(g ec2types.PlacementGroup) []string { return enum(g.Strategy) },
}

// DescribePlacementGroups answers the groups asked for (GroupIds: InvalidPlacementGroupId.NotFound
// for one it does not hold; GroupNames: InvalidPlacementGroup.Unknown) that match the filters,
// in one page (the call is not paginated).
func (f *EC2) DescribePlacementGroups(ctx context.Context, in *ec2.DescribePlacementGroupsInput, _ ...func(*ec2.Options)) (*ec2.DescribePlacementGroupsOutput, error) {
	return serve(ctx, &f.recorder, f.levers(), "DescribePlacementGroups", in, func(in *ec2.DescribePlacementGroupsInput) (*ec2.DescribePlacementGroupsOutput, error) {
		objs, err := byIDs(f.PlacementGroups, in.GroupIds, func(g ec2types.PlacementGroup) string { return aws.ToString(g.GroupId) },
			"InvalidPlacementGroupId.NotFound", "placement group")
		if err == nil {
			objs, err = byIDs(objs, in.GroupNames, func(g ec2types.PlacementGroup) string { return aws.ToString(g.GroupName) },
				"InvalidPlacementGroup.Unknown", "placement group")
		}
		if err != nil {
			return nil, err
		}
		return &ec2.DescribePlacementGroupsOutput{PlacementGroups: selectObjects("DescribePlacementGroups", objs, in.Filters, placementTags, placementFields)}, nil
	})
}

var spotFields = fields[ec2types.SpotPrice]{
	"instance-type":       func(p ec2types.SpotPrice) []string { return enum(p.InstanceType) },
	"availability-zone":   func(p ec2types.SpotPrice) []string { return str(p.AvailabilityZone) },
	"product-description": func(p ec2types.SpotPrice) []string { return enum(p.ProductDescription) },
}

// DescribeSpotPriceHistory answers the spot prices of the product descriptions, instance types
// and zone asked for that match the filters, in the order held. StartTime and EndTime are not
// applied: the fake's history is what EC2 answers for them. As EC2, the last page carries an
// empty NextToken.
func (f *EC2) DescribeSpotPriceHistory(ctx context.Context, in *ec2.DescribeSpotPriceHistoryInput, _ ...func(*ec2.Options)) (*ec2.DescribeSpotPriceHistoryOutput, error) {
	return serve(ctx, &f.recorder, f.levers(), "DescribeSpotPriceHistory", in, func(in *ec2.DescribeSpotPriceHistoryInput) (*ec2.DescribeSpotPriceHistoryOutput, error) {
		var objs []ec2types.SpotPrice
		for _, p := range f.SpotPrices {
			if (len(in.ProductDescriptions) == 0 || slices.Contains(in.ProductDescriptions, string(p.ProductDescription))) &&
				(len(in.InstanceTypes) == 0 || slices.Contains(in.InstanceTypes, p.InstanceType)) &&
				(in.AvailabilityZone == nil || aws.ToString(in.AvailabilityZone) == aws.ToString(p.AvailabilityZone)) {
				objs = append(objs, p)
			}
		}
		items, next, err := page("DescribeSpotPriceHistory", selectObjects("DescribeSpotPriceHistory", objs, in.Filters, nil, spotFields), f.PageSize, in.MaxResults, in.NextToken)
		if next == nil {
			next = aws.String("")
		}
		return &ec2.DescribeSpotPriceHistoryOutput{SpotPriceHistory: items, NextToken: next}, err
	})
}
