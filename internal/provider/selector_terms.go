package provider

const (
	descTermTags = "Tags the object must carry, ANDed. A value of exactly `\"*\"` matches any value of the key; " +
		"other values are EC2 filter values, so `\"*private*\"` matches with wildcards. 1 to 20 tags, no empty keys or values."
	descSubnetTerms = "Karpenter `subnetSelectorTerms`: 1 to 30 terms, ORed; fields within a term are ANDed. " +
		"Each term has `tags` or `id`, not both."
	descSGTerms = "Karpenter `securityGroupSelectorTerms`: 1 to 30 terms, ORed. Each term has exactly one of `tags`, `id` or `name`."
)
