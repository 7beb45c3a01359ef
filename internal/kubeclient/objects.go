package kubeclient

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// ErrNotFound: the resource is served but has no object of that name.
var ErrNotFound = errors.New("not found")

// Object reads one cluster-scoped object of apiVersion (group/version) and resource (its plural,
// e.g. "nodepools"), JSON decoded. An object that does not exist is ErrNotFound; a resource the
// server does not serve (its CRD missing) is ErrNotInstalled.
func (c *Client) Object(ctx context.Context, apiVersion, resource, name string) (map[string]any, error) {
	var obj map[string]any
	err := c.getJSON(ctx, resource, "/apis/"+apiVersion+"/"+resource+"/"+url.PathEscape(name), url.Values{}, &obj)
	if errors.Is(err, ErrNotInstalled) && strings.Contains(err.Error(), fmt.Sprintf("%q not found", name)) {
		// The server names the object it did not find; for a resource it does not serve it says
		// it could not find the requested resource.
		return nil, fmt.Errorf("%w: the cluster (%s) has no %s named %q", ErrNotFound, c.base.Host, resource, name)
	}
	return obj, err
}

// Objects lists the cluster-scoped objects of apiVersion and resource that carry the label
// selector ("" for all), page by page. A resource the server does not serve has none.
func (c *Client) Objects(ctx context.Context, apiVersion, resource, selector string) ([]map[string]any, error) {
	var out []map[string]any
	q := url.Values{"limit": {strconv.Itoa(PageSize)}}
	if selector != "" {
		q.Set("labelSelector", selector)
	}
	for {
		var page struct {
			Kind     string `json:"kind"`
			Metadata struct {
				Continue string `json:"continue"`
			} `json:"metadata"`
			Items []map[string]any `json:"items"`
		}
		err := c.getJSON(ctx, resource, "/apis/"+apiVersion+"/"+resource, q, &page)
		if errors.Is(err, ErrNotInstalled) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		for _, it := range page.Items { // a list's items may leave out what the list says
			if it["apiVersion"] == nil {
				it["apiVersion"] = apiVersion
			}
			if it["kind"] == nil {
				it["kind"] = strings.TrimSuffix(page.Kind, "List")
			}
		}
		out = append(out, page.Items...)
		if page.Metadata.Continue == "" {
			return out, nil
		}
		q.Set("continue", page.Metadata.Continue)
	}
}
