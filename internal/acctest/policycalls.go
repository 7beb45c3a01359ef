package acctest

import (
	"context"
	"encoding/json"
	"maps"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	"github.com/aws/aws-sdk-go-v2/service/eventbridge"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	iamtypes "github.com/aws/aws-sdk-go-v2/service/iam/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/ssm"
	smithymiddleware "github.com/aws/smithy-go/middleware"

	"github.com/nodeplane/terraform-provider-karpenter/internal/iampolicy"
)

// CallScope is what a recorded call is authorized in: the caller's partition, region and account,
// and the provider's cluster_name ("" while the provider is not configured yet).
type CallScope struct {
	Partition string `json:"partition"`
	Region    string `json:"region"`
	Account   string `json:"account"`
	Cluster   string `json:"cluster,omitempty"`
}

// PolicyCall is one SDK operation the provider called, as the IAM requests it needs: one per
// resource (and per action: CreateFleet also needs ec2:RunInstances, ec2:CreateTags and
// iam:PassRole).
type PolicyCall struct {
	Op    string    `json:"op"` // service operation, "EC2.CreateFleet"
	Scope CallScope `json:"scope"`
	// Failed: the call returned an error (it still had to be authorized).
	Failed   bool            `json:"failed,omitempty"`
	Requests []PolicyRequest `json:"requests"`
	// Unknown says what the recorder could not tell (a template or profile it never saw): the
	// requests it would need are missing.
	Unknown []string `json:"unknown,omitempty"`
	// Count is how many calls had this shape.
	Count int `json:"count"`
}

// PolicyRequest is one IAM request of a call: an action on a resource ARN with the request's
// tags (a create), the resource's tags (an existing object) and any other condition keys.
type PolicyRequest struct {
	Action       string              `json:"action"`
	Resource     string              `json:"resource"`
	RequestTags  map[string]string   `json:"request_tags,omitempty"`
	ResourceTags map[string]string   `json:"resource_tags,omitempty"`
	Keys         map[string][]string `json:"keys,omitempty"`
}

// IAM is the request as iampolicy.Authorize decides it: aws:RequestTag/<key> and aws:TagKeys for
// the request's tags, aws:ResourceTag/<key> for the resource's.
func (r PolicyRequest) IAM() iampolicy.Request {
	keys := map[string][]string{}
	for k, v := range r.Keys {
		keys[k] = v
	}
	if len(r.RequestTags) > 0 {
		tagKeys := slices.Sorted(maps.Keys(r.RequestTags))
		keys["aws:TagKeys"] = tagKeys
		for _, k := range tagKeys {
			keys["aws:RequestTag/"+k] = []string{r.RequestTags[k]}
		}
	}
	for k, v := range r.ResourceTags {
		keys["aws:ResourceTag/"+k] = []string{v}
	}
	return iampolicy.Request{Action: r.Action, Resource: r.Resource, Keys: keys}
}

// PolicyRecorder records the provider's AWS calls as IAM requests (Middleware on each SDK
// client). What an input does not say (the tags of an instance being terminated, the role of
// the profile a launch template names) it remembers from the calls it saw before: creates and
// Describe/Get outputs.
type PolicyRecorder struct {
	mu    sync.Mutex
	calls map[string]*PolicyCall
	order []string
	// Sink, when set, is handed every call as it is recorded (Count 1), e.g. to keep the calls
	// of a provider process that ends before the test reads them.
	Sink func(PolicyCall)

	instanceTags map[string]map[string]string // instance id → tags
	templates    map[string]*templateFacts    // launch template id → facts
	templateIDs  map[string]string            // name → id
	profiles     map[string]*profileFacts     // instance profile name → facts
	rolePaths    map[string]string            // role name → path
}

type templateFacts struct {
	tags     map[string]string
	data     templateData
	versions map[int64]templateData // versions written, until one is made the default
}

// templateData is what a launch through a template uses of it.
type templateData struct {
	Image, Profile string
	Groups         []string
	Snapshots      []string
	TagSpecs       map[string]map[string]string // resource type → tags
}

type profileFacts struct {
	path  string
	tags  map[string]string
	roles []string
	known bool // read or created: roles is the profile's whole list
}

// NewPolicyRecorder is an empty recorder.
func NewPolicyRecorder() *PolicyRecorder {
	return &PolicyRecorder{calls: map[string]*PolicyCall{}, instanceTags: map[string]map[string]string{},
		templates: map[string]*templateFacts{}, templateIDs: map[string]string{}, profiles: map[string]*profileFacts{},
		rolePaths: map[string]string{}}
}

// Middleware records every operation of an SDK client (add it to the client's APIOptions);
// scope is asked after each call, so a provider configured meanwhile names its cluster.
func (r *PolicyRecorder) Middleware(scope func() CallScope) func(*smithymiddleware.Stack) error {
	return func(stack *smithymiddleware.Stack) error {
		return stack.Initialize.Add(smithymiddleware.InitializeMiddlewareFunc("KarpenterPolicyRecorder",
			func(ctx context.Context, in smithymiddleware.InitializeInput, next smithymiddleware.InitializeHandler) (smithymiddleware.InitializeOutput, smithymiddleware.Metadata, error) {
				out, md, err := next.HandleInitialize(ctx, in)
				op := awsmiddleware.GetServiceID(ctx) + "." + awsmiddleware.GetOperationName(ctx)
				r.Record(op, scope(), in.Parameters, out.Result, err)
				return out, md, err
			}), smithymiddleware.After)
	}
}

// Record adds one call: its operation, input, output (nil when it failed) and error.
func (r *PolicyRecorder) Record(op string, s CallScope, input, output any, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	d := deriver{r: r, s: s, op: op}
	d.derive(input, output, err)
	call := PolicyCall{Op: op, Scope: d.s, Failed: err != nil, Requests: d.reqs, Unknown: d.unknown}
	key, _ := json.Marshal(call)
	if r.Sink != nil {
		one := call
		one.Count = 1
		r.Sink(one)
	}
	if c, ok := r.calls[string(key)]; ok {
		c.Count++
		return
	}
	call.Count = 1
	r.calls[string(key)] = &call
	r.order = append(r.order, string(key))
}

// Add records calls recorded elsewhere (another process's, read back), merging repeats.
func (r *PolicyRecorder) Add(calls ...PolicyCall) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, call := range calls {
		n := max(call.Count, 1)
		call.Count = 0
		key, _ := json.Marshal(call)
		if c, ok := r.calls[string(key)]; ok {
			c.Count += n
			continue
		}
		call.Count = n
		r.calls[string(key)] = &call
		r.order = append(r.order, string(key))
	}
}

// Calls are the distinct calls recorded, in the order first seen, each with its count.
func (r *PolicyRecorder) Calls() []PolicyCall {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]PolicyCall, 0, len(r.order))
	for _, k := range r.order {
		out = append(out, *r.calls[k])
	}
	return out
}

// The fixtures' IAM roles and SSM parameters (createRole, PutParameter): the node roles and
// ssm_parameter terms the test configurations name, which fill the published policy.
var fixtures struct {
	sync.Mutex
	roles, parameters map[string]bool
}

func noteFixture(kind, name string) {
	fixtures.Lock()
	defer fixtures.Unlock()
	if fixtures.roles == nil {
		fixtures.roles, fixtures.parameters = map[string]bool{}, map[string]bool{}
	}
	if kind == "role" {
		fixtures.roles[name] = true
	} else {
		fixtures.parameters[name] = true
	}
}

// FixtureRoles are the IAM roles the tests created (or found) as node roles, sorted.
func FixtureRoles() []string {
	fixtures.Lock()
	defer fixtures.Unlock()
	return slices.Sorted(maps.Keys(fixtures.roles))
}

// FixtureParameters are the SSM parameters the tests wrote, sorted.
func FixtureParameters() []string {
	fixtures.Lock()
	defer fixtures.Unlock()
	return slices.Sorted(maps.Keys(fixtures.parameters))
}

// arnIn builds an ARN of the scope's partition (acctest does not import awsclient, whose tests
// import acctest).
func arnIn(partition, service, region, account, resource string) string {
	return "arn:" + partition + ":" + service + ":" + region + ":" + account + ":" + resource
}

// ParameterARN is the ARN of an SSM parameter of the scope: AWS's public ones (/aws/service/…)
// have no account.
func ParameterARN(s CallScope, name string) string {
	if strings.HasPrefix(name, "arn:") {
		return name
	}
	if strings.HasPrefix(name, "/aws/") {
		return arnIn(s.Partition, "ssm", s.Region, "", "parameter"+name)
	}
	return arnIn(s.Partition, "ssm", s.Region, s.Account, "parameter/"+strings.TrimPrefix(name, "/"))
}

// RoleARN is the ARN of an IAM role of the scope's account (path "/" unless the recorder read it).
func RoleARN(s CallScope, path, name string) string {
	if path == "" {
		path = "/"
	}
	return arnIn(s.Partition, "iam", "", s.Account, "role"+path+name)
}

// deriver turns one call into its IAM requests, with the recorder's memory (r.mu held).
type deriver struct {
	r       *PolicyRecorder
	s       CallScope
	op      string
	reqs    []PolicyRequest
	unknown []string
}

func (d *deriver) add(action, resource string, reqTags, resTags map[string]string, keys map[string][]string) {
	d.reqs = append(d.reqs, PolicyRequest{Action: action, Resource: resource, RequestTags: nonEmpty(reqTags),
		ResourceTags: nonEmpty(resTags), Keys: keys})
}

func nonEmpty(m map[string]string) map[string]string {
	if len(m) == 0 {
		return nil
	}
	return m
}

// action is the IAM action of the operation ("EC2.DescribeSubnets" → "ec2:DescribeSubnets").
func (d *deriver) action() string {
	service, name, _ := strings.Cut(d.op, ".")
	prefix := strings.ToLower(strings.ReplaceAll(service, " ", ""))
	if prefix == "eventbridge" {
		prefix = "events"
	}
	return prefix + ":" + name
}

func (d *deriver) ec2(resource string) string {
	return arnIn(d.s.Partition, "ec2", d.s.Region, d.s.Account, resource)
}

func (d *deriver) iamARN(resource string) string {
	return arnIn(d.s.Partition, "iam", "", d.s.Account, resource)
}

// eks is an EKS ARN of the cluster; a call before the provider is configured (lookup_cluster,
// the controller check) is in the scope of the cluster it names.
func (d *deriver) eks(resource string) string {
	if d.s.Cluster == "" {
		if c, ok := strings.CutPrefix(resource, "cluster/"); ok {
			d.s.Cluster = c
		} else if _, rest, ok := strings.Cut(resource, "/"); ok {
			d.s.Cluster, _, _ = strings.Cut(rest, "/")
		}
	}
	return arnIn(d.s.Partition, "eks", d.s.Region, d.s.Account, resource)
}

// derive is the table: each operation's resources and tags; an operation not listed is
// authorized on "*" (the Describe, List and Get calls that take no resource-level permission).
func (d *deriver) derive(input, output any, err error) {
	for _, area := range []func(any, any, error) bool{d.templates, d.instances, d.iam, d.services} {
		if area(input, output, err) {
			return
		}
	}
	d.add(d.action(), "*", nil, nil, nil)
}

// templates are the static pools' launch template calls (and what they teach the recorder).
func (d *deriver) templates(input, output any, err error) bool {
	a := d.action()
	switch in := input.(type) {
	case *ec2.CreateLaunchTemplateInput:
		tags := ec2SpecTags(in.TagSpecifications, ec2types.ResourceTypeLaunchTemplate)
		d.add(a, d.ec2("launch-template/*"), tags, nil, nil)
		d.createTags("launch-template/*", tags)
		if out, ok := output.(*ec2.CreateLaunchTemplateOutput); ok && out != nil && out.LaunchTemplate != nil {
			id := aws.ToString(out.LaunchTemplate.LaunchTemplateId)
			d.r.templates[id] = &templateFacts{tags: tags, data: requestTemplateData(in.LaunchTemplateData)}
			d.r.templateIDs[aws.ToString(in.LaunchTemplateName)] = id
		}
	case *ec2.CreateLaunchTemplateVersionInput:
		t := d.template(aws.ToString(in.LaunchTemplateId), aws.ToString(in.LaunchTemplateName))
		if out, ok := output.(*ec2.CreateLaunchTemplateVersionOutput); ok && out != nil && out.LaunchTemplateVersion != nil && t != nil {
			if t.versions == nil {
				t.versions = map[int64]templateData{}
			}
			t.versions[aws.ToInt64(out.LaunchTemplateVersion.VersionNumber)] = requestTemplateData(in.LaunchTemplateData)
		}
	case *ec2.ModifyLaunchTemplateInput:
		t := d.template(aws.ToString(in.LaunchTemplateId), aws.ToString(in.LaunchTemplateName))
		if t != nil && err == nil {
			for n, data := range t.versions {
				if in.DefaultVersion != nil && aws.ToString(in.DefaultVersion) == strconv.FormatInt(n, 10) {
					t.data = data
				}
			}
		}
	case *ec2.DeleteLaunchTemplateInput:
		d.template(aws.ToString(in.LaunchTemplateId), aws.ToString(in.LaunchTemplateName))
	case *ec2.DescribeLaunchTemplatesInput:
		d.add(a, "*", nil, nil, nil)
		if out, ok := output.(*ec2.DescribeLaunchTemplatesOutput); ok && out != nil {
			for _, t := range out.LaunchTemplates {
				id := aws.ToString(t.LaunchTemplateId)
				f := d.r.templates[id]
				if f == nil {
					f = &templateFacts{}
					d.r.templates[id] = f
				}
				f.tags = ec2Tags(t.Tags)
				d.r.templateIDs[aws.ToString(t.LaunchTemplateName)] = id
			}
		}
	case *ec2.DescribeLaunchTemplateVersionsInput:
		d.add(a, "*", nil, nil, nil)
		if out, ok := output.(*ec2.DescribeLaunchTemplateVersionsOutput); ok && out != nil {
			for _, v := range out.LaunchTemplateVersions {
				if f := d.r.templates[aws.ToString(v.LaunchTemplateId)]; f != nil && aws.ToBool(v.DefaultVersion) {
					f.data = responseTemplateData(v.LaunchTemplateData)
				}
			}
		}
	default:
		return false
	}
	return true
}

// instances are the launches, terminations and instance reads of static pools.
func (d *deriver) instances(input, output any, err error) bool {
	a := d.action()
	switch in := input.(type) {
	case *ec2.CreateFleetInput:
		d.launch(in, output)
	case *ec2.TerminateInstancesInput:
		for _, id := range in.InstanceIds {
			tags, ok := d.r.instanceTags[id]
			if !ok {
				d.unknown = append(d.unknown, "the tags of instance "+id)
			}
			d.add(a, d.ec2("instance/"+id), nil, tags, nil)
		}
	case *ec2.DescribeInstancesInput:
		d.add(a, "*", nil, nil, nil)
		if out, ok := output.(*ec2.DescribeInstancesOutput); ok && out != nil {
			for _, res := range out.Reservations {
				for _, i := range res.Instances {
					d.r.instanceTags[aws.ToString(i.InstanceId)] = ec2Tags(i.Tags)
				}
			}
		}
	default:
		return false
	}
	return true
}

// iam are the classes' instance profiles, the roles they pass, the node-role check.
func (d *deriver) iam(input, output any, err error) bool {
	a := d.action()
	switch in := input.(type) {
	case *iam.GetRoleInput:
		if out, ok := output.(*iam.GetRoleOutput); ok && out != nil && out.Role != nil {
			d.r.rolePaths[aws.ToString(in.RoleName)] = aws.ToString(out.Role.Path)
		}
		d.add(a, d.role(aws.ToString(in.RoleName)), nil, nil, nil)
	case *iam.GetInstanceProfileInput:
		p := d.profile(aws.ToString(in.InstanceProfileName))
		if out, ok := output.(*iam.GetInstanceProfileOutput); ok && out != nil && out.InstanceProfile != nil {
			ip := out.InstanceProfile
			p.path, p.tags, p.roles, p.known = aws.ToString(ip.Path), iamTags(ip.Tags), nil, true
			for _, role := range ip.Roles {
				p.roles = append(p.roles, aws.ToString(role.RoleName))
				d.r.rolePaths[aws.ToString(role.RoleName)] = aws.ToString(role.Path)
			}
		}
		d.add(a, d.profileARN(aws.ToString(in.InstanceProfileName)), nil, nil, nil)
	case *iam.CreateInstanceProfileInput:
		name := aws.ToString(in.InstanceProfileName)
		p := d.profile(name)
		tags := iamTags(in.Tags)
		if err == nil {
			p.path, p.tags, p.roles, p.known = aws.ToString(in.Path), tags, nil, true
		}
		path := aws.ToString(in.Path)
		if path == "" {
			path = "/"
		}
		d.add(a, d.iamARN("instance-profile"+path+name), tags, nil, nil)
	case *iam.TagInstanceProfileInput:
		name := aws.ToString(in.InstanceProfileName)
		p := d.profile(name)
		d.add(a, d.profileARN(name), iamTags(in.Tags), p.tags, nil)
		if err == nil {
			if p.tags == nil {
				p.tags = map[string]string{}
			}
			maps.Copy(p.tags, iamTags(in.Tags))
		}
	case *iam.AddRoleToInstanceProfileInput:
		name, role := aws.ToString(in.InstanceProfileName), aws.ToString(in.RoleName)
		p := d.profile(name)
		d.add(a, d.profileARN(name), nil, p.tags, nil)
		d.passRole(role)
		if err == nil {
			p.roles = append(p.roles, role)
		}
	case *iam.RemoveRoleFromInstanceProfileInput:
		name := aws.ToString(in.InstanceProfileName)
		p := d.profile(name)
		d.add(a, d.profileARN(name), nil, p.tags, nil)
		if err == nil {
			p.roles = slices.DeleteFunc(p.roles, func(r string) bool { return r == aws.ToString(in.RoleName) })
		}
	case *iam.DeleteInstanceProfileInput:
		name := aws.ToString(in.InstanceProfileName)
		d.add(a, d.profileARN(name), nil, d.profile(name).tags, nil)
	case *iam.ListAttachedRolePoliciesInput:
		d.add(a, d.role(aws.ToString(in.RoleName)), nil, nil, nil)
	case *iam.ListRolePoliciesInput:
		d.add(a, d.role(aws.ToString(in.RoleName)), nil, nil, nil)
	case *iam.GetRolePolicyInput:
		d.add(a, d.role(aws.ToString(in.RoleName)), nil, nil, nil)
	case *iam.GetPolicyInput:
		d.add(a, aws.ToString(in.PolicyArn), nil, nil, nil)
	case *iam.GetPolicyVersionInput:
		d.add(a, aws.ToString(in.PolicyArn), nil, nil, nil)
	default:
		return false
	}
	return true
}

// services are SSM (alias and ssm_parameter terms), EKS (the cluster, its access entries and pod
// identity associations), SQS and EventBridge (the interruption queue and its rules).
func (d *deriver) services(input, output any, err error) bool {
	a := d.action()
	switch in := input.(type) {
	case *ssm.GetParameterInput:
		d.add(a, ParameterARN(d.s, aws.ToString(in.Name)), nil, nil, nil)

	// EKS: the cluster, its access entries and pod identity associations.
	case *eks.DescribeClusterInput:
		d.add(a, d.eks("cluster/"+aws.ToString(in.Name)), nil, nil, nil)
	case *eks.ListAccessEntriesInput:
		d.add(a, d.eks("cluster/"+aws.ToString(in.ClusterName)), nil, nil, nil)
	case *eks.DescribeAccessEntryInput:
		d.add(a, d.accessEntry(aws.ToString(in.ClusterName), aws.ToString(in.PrincipalArn), output), nil, nil, nil)
	case *eks.ListAssociatedAccessPoliciesInput:
		d.add(a, d.accessEntry(aws.ToString(in.ClusterName), aws.ToString(in.PrincipalArn), nil), nil, nil, nil)
	case *eks.ListPodIdentityAssociationsInput:
		d.add(a, d.eks("cluster/"+aws.ToString(in.ClusterName)), nil, nil, nil)
	case *eks.DescribePodIdentityAssociationInput:
		d.add(a, d.eks("podidentityassociation/"+aws.ToString(in.ClusterName)+"/"+aws.ToString(in.AssociationId)), nil, nil, nil)

	// SQS and EventBridge: the interruption queue and its rules.
	case *sqs.GetQueueUrlInput:
		account := aws.ToString(in.QueueOwnerAWSAccountId)
		if account == "" {
			account = d.s.Account
		}
		d.add(a, arnIn(d.s.Partition, "sqs", d.s.Region, account, aws.ToString(in.QueueName)), nil, nil, nil)
	case *sqs.GetQueueAttributesInput:
		d.add(a, d.queueARN(aws.ToString(in.QueueUrl)), nil, nil, nil)
	case *eventbridge.DescribeRuleInput:
		rule := aws.ToString(in.Name)
		if bus := aws.ToString(in.EventBusName); bus != "" && bus != "default" {
			rule = bus + "/" + rule
		}
		d.add(a, arnIn(d.s.Partition, "events", d.s.Region, d.s.Account, "rule/"+rule), nil, nil, nil)
	default:
		return false
	}
	return true
}

// template is the launch template of a change or delete, the request on it with its tags.
func (d *deriver) template(id, name string) *templateFacts {
	if id == "" {
		id = d.r.templateIDs[name]
	}
	t := d.r.templates[id]
	if t == nil {
		d.unknown = append(d.unknown, "the tags of launch template "+id+name)
		d.add(d.action(), d.ec2("launch-template/"+id), nil, nil, nil)
		return nil
	}
	d.add(d.action(), d.ec2("launch-template/"+id), nil, t.tags, nil)
	return t
}

// createTags is the ec2:CreateTags request of a create that tags what it creates.
func (d *deriver) createTags(resource string, tags map[string]string) {
	if len(tags) == 0 {
		return
	}
	_, name, _ := strings.Cut(d.op, ".")
	d.add("ec2:CreateTags", d.ec2(resource), tags, nil, map[string][]string{"ec2:CreateAction": {name}})
}

// launch is an instant CreateFleet: ec2:CreateFleet and ec2:RunInstances on what it creates
// (instances, volumes, network interfaces, with the fleet's and the templates' tags), on the
// templates (their tags) and on what it uses (subnets, groups, images, snapshots), the fleet
// and spot requests; ec2:CreateTags for each tagged create, and iam:PassRole of each template's
// profile's role to EC2.
func (d *deriver) launch(in *ec2.CreateFleetInput, output any) {
	l := launchParts{created: map[string]map[string]string{}}
	for _, rt := range launchCreates {
		l.created[string(rt)] = map[string]string{}
	}
	for _, c := range in.LaunchTemplateConfigs {
		d.launchConfig(&l, c)
	}
	for _, ts := range in.TagSpecifications {
		if m := l.created[string(ts.ResourceType)]; m != nil {
			maps.Copy(m, ec2Tags(ts.Tags))
		}
	}
	slices.Sort(l.uses)
	l.uses = slices.Compact(l.uses)
	fleetID := "*"
	out, _ := output.(*ec2.CreateFleetOutput)
	if out != nil && aws.ToString(out.FleetId) != "" {
		fleetID = aws.ToString(out.FleetId)
	}
	spot := in.TargetCapacitySpecification != nil && in.TargetCapacitySpecification.DefaultTargetCapacityType == ec2types.DefaultTargetCapacityTypeSpot
	for _, action := range []string{"ec2:CreateFleet", "ec2:RunInstances"} {
		for _, rt := range launchCreates {
			d.add(action, d.ec2(string(rt)+"/*"), l.created[string(rt)], nil, nil)
		}
		for _, t := range l.templates {
			d.add(action, t.Resource, nil, t.ResourceTags, nil)
		}
		for _, u := range l.uses {
			d.add(action, u, nil, nil, nil)
		}
		if action == "ec2:CreateFleet" {
			d.add(action, d.ec2("fleet/"+fleetID), nil, nil, nil)
		}
		if spot {
			d.add(action, d.ec2("spot-instances-request/*"), nil, nil, nil)
		}
	}
	for _, rt := range launchCreates {
		d.createTags(string(rt)+"/*", l.created[string(rt)])
	}
	slices.Sort(l.passes)
	for _, role := range slices.Compact(l.passes) {
		d.passRole(role)
	}
	if out != nil {
		for _, i := range out.Instances {
			for _, id := range i.InstanceIds {
				d.r.instanceTags[id] = maps.Clone(l.created[string(ec2types.ResourceTypeInstance)])
			}
		}
	}
}

// launchCreates are the resource types a launch creates and may tag.
var launchCreates = []ec2types.ResourceType{ec2types.ResourceTypeInstance, ec2types.ResourceTypeVolume, ec2types.ResourceTypeNetworkInterface}

// launchParts are what a launch touches: the tags of what it creates by resource type, the
// templates (with their tags), what it uses and the roles it passes.
type launchParts struct {
	created   map[string]map[string]string
	templates []PolicyRequest
	uses      []string
	passes    []string
}

// launchConfig adds one launch template config of a fleet: the template, its tags for what the
// launch creates, the subnets and images of its overrides (else the template's image), its
// groups and snapshots, and the role of its profile.
func (d *deriver) launchConfig(l *launchParts, c ec2types.FleetLaunchTemplateConfigRequest) {
	spec := c.LaunchTemplateSpecification
	if spec == nil {
		return
	}
	id := aws.ToString(spec.LaunchTemplateId)
	if id == "" {
		id = d.r.templateIDs[aws.ToString(spec.LaunchTemplateName)]
	}
	t := d.r.templates[id]
	if t == nil {
		d.unknown = append(d.unknown, "launch template "+id+aws.ToString(spec.LaunchTemplateName))
		t = &templateFacts{}
	}
	l.templates = append(l.templates, PolicyRequest{Resource: d.ec2("launch-template/" + id), ResourceTags: nonEmpty(t.tags)})
	for rt, tags := range t.data.TagSpecs {
		if l.created[rt] != nil {
			maps.Copy(l.created[rt], tags)
		}
	}
	var images []string
	for _, o := range c.Overrides {
		if s := aws.ToString(o.SubnetId); s != "" {
			l.uses = append(l.uses, d.ec2("subnet/"+s))
		}
		if img := aws.ToString(o.ImageId); img != "" {
			images = append(images, img)
		}
	}
	if len(images) == 0 && t.data.Image != "" {
		images = append(images, t.data.Image)
	}
	for _, img := range images {
		l.uses = append(l.uses, arnIn(d.s.Partition, "ec2", d.s.Region, "", "image/"+img))
	}
	for _, g := range t.data.Groups {
		l.uses = append(l.uses, d.ec2("security-group/"+g))
	}
	for _, s := range t.data.Snapshots {
		l.uses = append(l.uses, arnIn(d.s.Partition, "ec2", d.s.Region, "", "snapshot/"+s))
	}
	if t.data.Profile != "" {
		p := d.r.profiles[t.data.Profile]
		if p == nil || !p.known {
			d.unknown = append(d.unknown, "the role of instance profile "+t.data.Profile)
			return
		}
		l.passes = append(l.passes, p.roles...)
	}
}

// passRole is the iam:PassRole request of a role given to EC2 (a profile's role, at launch or
// when it is added to the profile).
func (d *deriver) passRole(role string) {
	arn := role
	if !strings.HasPrefix(role, "arn:") {
		arn = RoleARN(d.s, d.r.rolePaths[role], role)
	}
	d.add("iam:PassRole", arn, nil, nil, map[string][]string{"iam:PassedToService": {"ec2.amazonaws.com"}})
}

func (d *deriver) role(name string) string {
	if strings.HasPrefix(name, "arn:") {
		return name
	}
	return RoleARN(d.s, d.r.rolePaths[name], name)
}

func (d *deriver) profile(name string) *profileFacts {
	p := d.r.profiles[name]
	if p == nil {
		p = &profileFacts{}
		d.r.profiles[name] = p
	}
	return p
}

func (d *deriver) profileARN(name string) string {
	path := "/"
	if p := d.r.profiles[name]; p != nil && p.path != "" {
		path = p.path
	}
	return d.iamARN("instance-profile" + path + name)
}

// accessEntry is the ARN of the cluster's access entry of a principal: EKS's own when the
// answer gives it, else the form EKS writes (its last part, a generated id, unknown).
func (d *deriver) accessEntry(cluster, principal string, output any) string {
	if out, ok := output.(*eks.DescribeAccessEntryOutput); ok && out != nil && out.AccessEntry != nil && aws.ToString(out.AccessEntry.AccessEntryArn) != "" {
		return aws.ToString(out.AccessEntry.AccessEntryArn)
	}
	kind, name := "role", principal
	if parts := strings.SplitN(principal, ":", 6); len(parts) == 6 {
		res := parts[5]
		kind, name, _ = strings.Cut(res, "/")
		if i := strings.LastIndex(name, "/"); i >= 0 {
			name = name[i+1:]
		}
	}
	return d.eks("access-entry/" + cluster + "/" + kind + "/" + d.s.Account + "/" + name + "/entry")
}

// queueARN is the ARN of a queue URL (https://sqs.<region>.amazonaws.com/<account>/<name>).
func (d *deriver) queueARN(queueURL string) string {
	u, err := url.Parse(queueURL)
	if err != nil {
		return queueURL
	}
	parts := strings.Split(strings.Trim(u.Path, "/"), "/")
	if len(parts) < 2 {
		return queueURL
	}
	return arnIn(d.s.Partition, "sqs", d.s.Region, parts[len(parts)-2], parts[len(parts)-1])
}

func ec2Tags(tags []ec2types.Tag) map[string]string {
	m := map[string]string{}
	for _, t := range tags {
		m[aws.ToString(t.Key)] = aws.ToString(t.Value)
	}
	return m
}

func iamTags(tags []iamtypes.Tag) map[string]string {
	m := map[string]string{}
	for _, t := range tags {
		m[aws.ToString(t.Key)] = aws.ToString(t.Value)
	}
	return m
}

func ec2SpecTags(specs []ec2types.TagSpecification, rt ec2types.ResourceType) map[string]string {
	m := map[string]string{}
	for _, s := range specs {
		if s.ResourceType == rt {
			maps.Copy(m, ec2Tags(s.Tags))
		}
	}
	return m
}

func requestTemplateData(in *ec2types.RequestLaunchTemplateData) templateData {
	if in == nil {
		return templateData{}
	}
	d := templateData{Image: aws.ToString(in.ImageId), Groups: slices.Clone(in.SecurityGroupIds), TagSpecs: map[string]map[string]string{}}
	if p := in.IamInstanceProfile; p != nil {
		d.setProfile(aws.ToString(p.Name), aws.ToString(p.Arn))
	}
	for _, ni := range in.NetworkInterfaces {
		d.Groups = append(d.Groups, ni.Groups...)
	}
	for _, b := range in.BlockDeviceMappings {
		if b.Ebs != nil {
			d.addSnapshot(aws.ToString(b.Ebs.SnapshotId))
		}
	}
	for _, s := range in.TagSpecifications {
		d.TagSpecs[string(s.ResourceType)] = ec2Tags(s.Tags)
	}
	d.normalize()
	return d
}

// responseTemplateData is requestTemplateData for a template as EC2 describes it (its own SDK types).
func responseTemplateData(in *ec2types.ResponseLaunchTemplateData) templateData {
	if in == nil {
		return templateData{}
	}
	d := templateData{Image: aws.ToString(in.ImageId), Groups: slices.Clone(in.SecurityGroupIds), TagSpecs: map[string]map[string]string{}}
	if p := in.IamInstanceProfile; p != nil {
		d.setProfile(aws.ToString(p.Name), aws.ToString(p.Arn))
	}
	for _, ni := range in.NetworkInterfaces {
		d.Groups = append(d.Groups, ni.Groups...)
	}
	for _, b := range in.BlockDeviceMappings {
		if b.Ebs != nil {
			d.addSnapshot(aws.ToString(b.Ebs.SnapshotId))
		}
	}
	for _, s := range in.TagSpecifications {
		d.TagSpecs[string(s.ResourceType)] = ec2Tags(s.Tags)
	}
	d.normalize()
	return d
}

// setProfile names the template's instance profile, by name or else by its ARN.
func (d *templateData) setProfile(name, arn string) {
	if d.Profile = name; d.Profile == "" {
		d.Profile = profileNameOfARN(arn)
	}
}

func (d *templateData) addSnapshot(id string) {
	if id != "" {
		d.Snapshots = append(d.Snapshots, id)
	}
}

func (d *templateData) normalize() {
	sort.Strings(d.Groups)
	d.Groups = slices.Compact(d.Groups)
	sort.Strings(d.Snapshots)
	d.Snapshots = slices.Compact(d.Snapshots)
}

func profileNameOfARN(arn string) string {
	if i := strings.LastIndex(arn, "/"); i >= 0 {
		return arn[i+1:]
	}
	return arn
}
