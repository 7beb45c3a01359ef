package provider

import (
	"context"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/nodeplane/terraform-provider-karpenter/internal/launchplan"
	"github.com/nodeplane/terraform-provider-karpenter/internal/planner"
)

var (
	_ datasource.DataSourceWithConfigure      = (*capacityReservationsDataSource)(nil)
	_ datasource.DataSourceWithValidateConfig = (*capacityReservationsDataSource)(nil)
)

type capacityReservationsDataSource struct{ meta *Meta }

func newCapacityReservationsDataSource() datasource.DataSource {
	return &capacityReservationsDataSource{}
}

func (d *capacityReservationsDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_capacity_reservations"
}

func (d *capacityReservationsDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	str := func(desc string) schema.Attribute {
		return schema.StringAttribute{Computed: true, MarkdownDescription: desc}
	}
	strList := func(desc string) schema.Attribute {
		return schema.ListAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: desc}
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "The region's active and scheduled capacity reservations and Capacity Blocks, read live with " +
			"`ec2:DescribeCapacityReservations` (shared ones included), with the node classes of the configuration that select " +
			"each and the node pools that launch into each. A reservation a class selects that has free instances and that no " +
			"pool uses (in `node_pools`, or of the cluster as below) is idle but billed: a warning on `node_classes` names it, its type, zone and free " +
			"instances, what they cost per hour unused (the type's on-demand price, from the prices pools plan with) and why " +
			"each pool does not take it. An active reservation with free instances that no class selects is in " +
			"`unselected_ids`, for a `check` block to fail on.\n\n" +
			"With the provider's `kubernetes` access the cluster's other NodePools on the classes count too: each NodePool whose " +
			"`nodeClassRef` names an `EC2NodeClass` of `node_classes` and whose name is not a key of `node_pools` is judged on " +
			"its class's reservations as `NodePool <name> (cluster)` in `used_by` and `idle_reasons`. A cluster NodePool is " +
			"judged by its requirements, zones and capacity type only: its requirements on the reservation's type (the type's " +
			"labels from the instance-type catalog), its `topology.kubernetes.io/zone` requirements, and a " +
			"`karpenter.sh/capacity-type` that allows `reserved`, with Karpenter's `ReservedCapacity` gate on " +
			"(`karpenter_feature_gates`; with it off, no cluster NodePool takes a reservation); its limits are not. Listing them needs list on `nodepools.karpenter.sh`; when the " +
			"listing fails, a warning says so and `node_pools` alone count.",
		Attributes: map[string]schema.Attribute{
			"node_classes": schema.MapAttribute{
				Optional: true, ElementType: types.ListType{ElemType: types.StringType},
				MarkdownDescription: "Node class name → the reservation ids it selects, e.g. " +
					"`{ gpu = karpenter_node_class.gpu.capacity_reservations[*].id }`.",
			},
			"node_pools": schema.MapAttribute{
				Optional: true, ElementType: types.ListType{ElemType: types.ObjectType{AttrTypes: attrTypesOf(launchplan.ReservationUseValue{})}},
				MarkdownDescription: "Node pool name → the pool's `reservations` (its verdict on each reservation of its class), e.g. " +
					"`{ training = karpenter_node_pool.training.reservations }`. A reservation is used when a pool's verdict " +
					"has no `reason`. With `kubernetes` access, the cluster's NodePools on the classes that are not keys here are judged " +
					"from the cluster.",
			},
			"instance_types": schema.ListAttribute{Optional: true, ElementType: types.StringType,
				MarkdownDescription: "List only reservations of these instance types."},
			"availability_zones": schema.ListAttribute{Optional: true, ElementType: types.StringType,
				MarkdownDescription: "List only reservations in these availability zones."},
			"reservations": schema.ListNestedAttribute{
				Computed:            true,
				MarkdownDescription: "The reservations, sorted by id.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"id":                       str("Reservation id, `cr-…`."),
					"instance_type":            str("Reserved instance type."),
					"availability_zone":        str("Zone of the reservation."),
					"reservation_type":         str("`default` (an On-Demand Capacity Reservation) or `capacity-block`."),
					"state":                    str("`active`, or `scheduled` for one that has not started."),
					"instance_match_criteria":  str("`open` (matching launches use it without selecting it) or `targeted`."),
					"owner_id":                 str("Account that owns the reservation."),
					"total_instance_count":     computedInt("Instances reserved."),
					"available_instance_count": computedInt("Instances free to launch into."),
					"start_date":               str("When the reservation starts (RFC 3339); null when EC2 does not say."),
					"end_date":                 str("When the reservation ends (RFC 3339); null when it does not."),
					"interruptible":            schema.BoolAttribute{Computed: true, MarkdownDescription: "Whether it is an interruptible capacity reservation."},
					"tags":                     schema.MapAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: "Tags of the reservation."},
					"selected_by":              strList("Names in `node_classes` that select it, sorted."),
					"used_by": strList("Names in `node_pools` whose verdict on it has no reason, sorted, then the cluster's other " +
						"NodePools that can launch into it, `NodePool <name> (cluster)`, sorted (with `kubernetes` access)."),
					"idle": schema.BoolAttribute{Computed: true, MarkdownDescription: "Whether it is idle but billed: active, " +
						"selected by a class, with free instances, and used by no pool (`used_by` empty)."},
					"idle_reasons": strList("For an idle reservation, why each pool that judged it does not take it, `pool: reason` " +
						"(a cluster NodePool's pool is `NodePool <name> (cluster)`), sorted."),
					"idle_hourly_cost": schema.Float64Attribute{Computed: true, MarkdownDescription: "For an active reservation " +
						"with free instances that no pool uses (`used_by` empty): its type's on-demand price × its free instances, " +
						"per hour (USD); null otherwise, or when the price is not known."},
				}},
			},
			"unselected_ids": strList("Ids of active reservations with free instances that no class in `node_classes` selects, " +
				"sorted. An `open` one may still be used by matching launches outside Karpenter."),
			"idle_ids": strList("Ids of the idle reservations (`idle`), sorted."),
		},
	}
}

func (d *capacityReservationsDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.meta = metaFrom(req.ProviderData, &resp.Diagnostics)
}

func (d *capacityReservationsDataSource) ValidateConfig(_ context.Context, req datasource.ValidateConfigRequest, resp *datasource.ValidateConfigResponse) {
	var q planner.ReservationsQuery
	if decodeInto(req.Config.Raw, &q, "configuration", &resp.Diagnostics) && req.Config.Raw.IsFullyKnown() {
		addFindings(&resp.Diagnostics, planner.CheckReservationsQuery(q), nil)
	}
}

func (d *capacityReservationsDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var q planner.ReservationsQuery
	if decodeInto(req.Config.Raw, &q, "configuration", &resp.Diagnostics) && requireMeta(d.meta, &resp.Diagnostics) {
		c := d.meta.Client
		ports := planner.ReservationsPorts{List: c.Discovery().ListCapacityReservations, Prices: c.Prices, Catalog: c.Catalog}
		if d.meta.Kube != nil {
			ports.NodePools = d.meta.clusterNodePools
		}
		facts := planner.ReservationsFacts{FeatureGates: d.meta.KarpenterFeatureGates, Now: time.Now()}
		out, errs, warnings := planner.Reservations(ctx, q, ports, facts)
		answer(resp, req.Config.Raw, out, errs, warnings)
	}
}
