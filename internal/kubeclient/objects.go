package kubeclient

import (
	"context"
	"errors"
	"fmt"
	"net/url"
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
