package kubeclient

import (
	"context"
	"encoding/json"
	"net/url"
)

// CRD is the part of an apiextensions.k8s.io/v1 CustomResourceDefinition the provider reads:
// the versions the API server serves and the schema it prunes and validates each with.
type CRD struct {
	Name     string
	Versions []CRDVersion
}

// CRDVersion is one version of a CRD.
type CRDVersion struct {
	// Name is the version, e.g. "v1".
	Name string
	// Served reports that the API server serves objects of this version.
	Served bool
	// Schema is the version's openAPIV3Schema as JSON (nil when the version has none). It is
	// kept raw: what it means is decided by the caller, which has the apiextensions types.
	Schema json.RawMessage
}

// CRD reads the CustomResourceDefinition name (e.g. nodepools.karpenter.sh); nil when the cluster
// has none of that name. A token without get on customresourcedefinitions.apiextensions.k8s.io
// gets an error that says so.
func (c *Client) CRD(ctx context.Context, name string) (*CRD, error) {
	var it struct {
		Metadata struct {
			Name string `json:"name"`
		} `json:"metadata"`
		Spec struct {
			Versions []struct {
				Name   string `json:"name"`
				Served bool   `json:"served"`
				Schema struct {
					OpenAPIV3Schema json.RawMessage `json:"openAPIV3Schema"`
				} `json:"schema"`
			} `json:"versions"`
		} `json:"spec"`
	}
	err := c.getJSON(ctx, "customresourcedefinitions", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/"+url.PathEscape(name),
		url.Values{}, &it)
	if absent(err) { // 404: no CRD of that name
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	out := &CRD{Name: it.Metadata.Name}
	for _, v := range it.Spec.Versions {
		out.Versions = append(out.Versions, CRDVersion{Name: v.Name, Served: v.Served, Schema: v.Schema.OpenAPIV3Schema})
	}
	return out, nil
}
