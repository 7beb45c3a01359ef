package kubeclient

import (
	"context"
	"errors"
	"net/url"
	"strings"
)

// Object reads one cluster-scoped object of apiVersion (group/version) and resource (its plural,
// e.g. "nodepools"), JSON decoded. An object that does not exist is ErrNotFound; a resource the
// server does not serve (its CRD missing) is ErrNotInstalled.
func (c *Client) Object(ctx context.Context, apiVersion, resource, name string) (map[string]any, error) {
	var obj map[string]any
	err := c.getJSON(ctx, resource, "/apis/"+apiVersion+"/"+resource+"/"+url.PathEscape(name), url.Values{}, &obj)
	return obj, err
}

// Objects lists the cluster-scoped objects of apiVersion and resource that carry the label
// selector ("" for all), page by page. A resource the server does not serve has none.
func (c *Client) Objects(ctx context.Context, apiVersion, resource, selector string) ([]map[string]any, error) {
	q := url.Values{}
	if selector != "" {
		q.Set("labelSelector", selector)
	}
	items, kind, err := listAll[map[string]any](ctx, c, resource, "/apis/"+apiVersion+"/"+resource, q)
	if errors.Is(err, ErrNotInstalled) {
		return nil, nil
	}
	for _, it := range items { // a list's items may leave out what the list says
		if it["apiVersion"] == nil {
			it["apiVersion"] = apiVersion
		}
		if it["kind"] == nil {
			it["kind"] = strings.TrimSuffix(kind, "List")
		}
	}
	return items, err
}
