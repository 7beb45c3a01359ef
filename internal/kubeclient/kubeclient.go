// Package kubeclient is the provider's small, read-only door to the Kubernetes API server: it
// lists a NodePool's Karpenter v1 NodeClaims at plan time so that the plan can say which running
// nodes a change drifts. It speaks plain HTTPS with the standard library and decodes only the
// fields the provider reads; what those fields mean is decided elsewhere.
package kubeclient

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// Timeout bounds every request the client sends.
const Timeout = 20 * time.Second

// PageSize is the limit asked of the API server for each page of a list.
const PageSize = 500

// Label and annotation keys the client reads from NodeClaims.
const (
	LabelNodePool           = "karpenter.sh/nodepool"
	AnnotationNodePoolHash  = "karpenter.sh/nodepool-hash"
	AnnotationNodeClassHash = "karpenter.k8s.aws/ec2nodeclass-hash"
)

const (
	nodeClaimsPath         = "/apis/karpenter.sh/v1/nodeclaims"
	nodeOverlaysAPIVersion = "karpenter.sh/v1alpha1"
)

// Errors the caller can tell apart with errors.Is. The errors the client returns wrap one of
// these together with the detail (host, status, server message or transport error).
var (
	// ErrForbidden: the server answered 401 or 403, so the token cannot list nodeclaims.
	ErrForbidden = errors.New("the token cannot list nodeclaims (RBAC: get/list on nodeclaims.karpenter.sh)")
	// ErrNotFound: the server answered 404 naming the object: the resource is served but has no
	// object of that name.
	ErrNotFound = errors.New("not found")
	// ErrNotInstalled: the server answered 404 for the resource, so the CRD is missing.
	ErrNotInstalled = errors.New("the Karpenter NodeClaim CRD (nodeclaims.karpenter.sh, v1) is not installed")
	// ErrUnreachable: no HTTP answer came back (DNS, connection, TLS verification, timeout).
	ErrUnreachable = errors.New("the Kubernetes API server is unreachable")
	// ErrConfig: the Config cannot be used (empty host, CA certificate that does not parse).
	ErrConfig = errors.New("invalid Kubernetes client configuration")
)

// Config is how to reach the API server.
type Config struct {
	// Host is the API server URL, e.g. https://ABC.gr7.ap-southeast-1.eks.amazonaws.com. A bare
	// host[:port] gets https://.
	Host string
	// CACertificatePEM is the PEM of the cluster CA; empty means the system roots.
	CACertificatePEM string
	// Token is sent as a bearer token; empty sends no Authorization header.
	Token string
	// Insecure skips server certificate verification. For tests only.
	Insecure bool
}

// Client lists NodeClaims. It is safe for concurrent use.
type Client struct {
	base  *url.URL
	token string
	http  *http.Client
	// down is the first transport failure (no HTTP answer: a timeout, a refused connection, a
	// TLS error): later requests fail at once with it, so a server that hangs costs one
	// Timeout per provider process, not one per read.
	down atomic.Pointer[error]
}

// NodeClaim is the part of a karpenter.sh/v1 NodeClaim the provider reads.
type NodeClaim struct {
	Name string
	// NodePool is the karpenter.sh/nodepool label.
	NodePool string
	Labels   map[string]string
	// NodePoolHash and NodeClassHash are the karpenter.sh/nodepool-hash and
	// karpenter.k8s.aws/ec2nodeclass-hash annotations ("" when absent).
	NodePoolHash  string
	NodeClassHash string
	// ImageID is status.imageID.
	ImageID string
	// ProviderID is status.providerID, e.g. aws:///ap-southeast-1a/i-0123456789abcdef0.
	ProviderID string
	// InstanceID is the EC2 instance ID parsed from ProviderID ("" when it has none).
	InstanceID string
	// NodeName is status.nodeName.
	NodeName string
	// Deleting reports that metadata.deletionTimestamp is set.
	Deleting bool
}

// New builds a Client from cfg. It sends nothing.
func New(cfg Config) (*Client, error) {
	host := strings.TrimSpace(cfg.Host)
	if host == "" {
		return nil, fmt.Errorf("%w: host is empty", ErrConfig)
	}
	if !strings.Contains(host, "://") {
		host = "https://" + host
	}
	base, err := url.Parse(host)
	if err != nil || base.Host == "" {
		return nil, fmt.Errorf("%w: host %q is not a URL", ErrConfig, cfg.Host)
	}
	if base.Scheme != "https" && base.Scheme != "http" {
		return nil, fmt.Errorf("%w: host %q: scheme must be https", ErrConfig, cfg.Host)
	}
	base.Path = strings.TrimRight(base.Path, "/")
	base.RawQuery, base.Fragment = "", ""

	tlsConfig := &tls.Config{MinVersion: tls.VersionTLS12}
	if cfg.Insecure {
		tlsConfig.InsecureSkipVerify = true //nolint:gosec // Config.Insecure is for tests only.
	} else if strings.TrimSpace(cfg.CACertificatePEM) != "" {
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM([]byte(cfg.CACertificatePEM)) {
			return nil, fmt.Errorf("%w: cluster_ca_certificate: no PEM certificate could be parsed", ErrConfig)
		}
		tlsConfig.RootCAs = pool
	}

	transport := &http.Transport{Proxy: http.ProxyFromEnvironment, TLSClientConfig: tlsConfig, TLSHandshakeTimeout: 10 * time.Second,
		IdleConnTimeout: 90 * time.Second, MaxIdleConns: 10, ForceAttemptHTTP2: true}
	return &Client{
		base:  base,
		token: cfg.Token,
		http:  &http.Client{Transport: transport, Timeout: Timeout},
	}, nil
}

// Host is the API server URL the client talks to.
func (c *Client) Host() string { return c.base.String() }

// NodeClaims lists the NodeClaims labelled karpenter.sh/nodepool=pool, following pagination,
// sorted by name.
func (c *Client) NodeClaims(ctx context.Context, pool string) ([]NodeClaim, error) {
	if pool == "" {
		return nil, errors.New("listing nodeclaims: NodePool name is empty")
	}
	items, _, err := listAll[nodeClaimItem](ctx, c, "nodeclaims", nodeClaimsPath, url.Values{"labelSelector": {LabelNodePool + "=" + pool}})
	if err != nil {
		return nil, err
	}
	out := make([]NodeClaim, 0, len(items))
	for _, item := range items {
		out = append(out, item.nodeClaim())
	}
	slices.SortFunc(out, func(a, b NodeClaim) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// NodeOverlays lists the names of the cluster's karpenter.sh/v1alpha1 NodeOverlays, sorted; a
// cluster without the NodeOverlay CRD has none.
func (c *Client) NodeOverlays(ctx context.Context) ([]string, error) {
	objs, err := c.Objects(ctx, nodeOverlaysAPIVersion, "nodeoverlays", "")
	if err != nil {
		return nil, err
	}
	var names []string
	for _, o := range objs {
		meta, _ := o["metadata"].(map[string]any)
		if name, _ := meta["name"].(string); name != "" {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names, nil
}

// listPage is one page of a list.
type listPage[T any] struct {
	Kind     string `json:"kind"`
	Metadata struct {
		Continue string `json:"continue"`
	} `json:"metadata"`
	Items []T `json:"items"`
}

// listAll GETs every page of the list at path (q, with the page size and each continue token)
// and returns its items and the list's kind; a continue token the server repeats is an error.
func listAll[T any](ctx context.Context, c *Client, what, path string, q url.Values) ([]T, string, error) {
	q.Set("limit", strconv.Itoa(PageSize))
	var items []T
	seen := map[string]bool{}
	for {
		var page listPage[T]
		if err := c.getJSON(ctx, what, path, q, &page); err != nil {
			return nil, "", err
		}
		items = append(items, page.Items...)
		cont := page.Metadata.Continue
		if cont == "" {
			return items, page.Kind, nil
		}
		if seen[cont] {
			return nil, "", fmt.Errorf("listing %s on %s: the server repeated continue token %q", what, c.base.Host, cont)
		}
		seen[cont] = true
		q.Set("continue", cont)
	}
}

// getJSON GETs path with query q and decodes the answer into dst; what names the resource in
// errors.
func (c *Client) getJSON(ctx context.Context, what, path string, q url.Values, dst any) error {
	u := *c.base
	u.Path = c.base.Path + path
	u.RawQuery = q.Encode()

	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return fmt.Errorf("listing %s on %s: %w", what, c.base.Host, err)
	}
	req.Header.Set("Accept", "application/json")
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	if down := c.down.Load(); down != nil {
		return fmt.Errorf("%w (not asked for %s: an earlier request got no answer)", *down, what)
	}

	resp, err := c.http.Do(req)
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return fmt.Errorf("listing %s on %s: %w", what, c.base.Host, ctxErr)
		}
		err = fmt.Errorf("%w: %s: %w", ErrUnreachable, c.base.Host, err)
		c.down.CompareAndSwap(nil, &err)
		return err
	}
	defer resp.Body.Close()

	switch resp.StatusCode {
	case http.StatusOK:
	case http.StatusUnauthorized, http.StatusForbidden:
		if what != "nodeclaims" {
			resource, ok := map[string]string{"deployments": "deployments.apps", "customresourcedefinitions": "customresourcedefinitions.apiextensions.k8s.io",
				"ec2nodeclasses": "ec2nodeclasses.karpenter.k8s.aws", "serviceaccounts": "serviceaccounts (core group)",
				"nodeclasses": "nodeclasses.eks.amazonaws.com"}[what]
			if !ok {
				resource = what + ".karpenter.sh"
			}
			return fmt.Errorf("the token cannot read %s (RBAC: get/list on %s): %s answered %s%s", what, resource, c.base.Host,
				resp.Status, serverMessage(resp.Body))
		}
		return fmt.Errorf("%w: %s answered %s%s", ErrForbidden, c.base.Host, resp.Status, serverMessage(resp.Body))
	case http.StatusNotFound:
		// The server names the object it did not find; a resource it does not serve it cannot name.
		msg, name := serverStatus(resp.Body)
		if name != "" {
			return fmt.Errorf("%w: the cluster (%s) has no %s named %q", ErrNotFound, c.base.Host, what, name)
		}
		return fmt.Errorf("%w: %s answered %s for %s%s", ErrNotInstalled, c.base.Host, resp.Status, path, msg)
	default:
		return fmt.Errorf("listing %s on %s: %s%s", what, c.base.Host, resp.Status, serverMessage(resp.Body))
	}
	if err := json.NewDecoder(resp.Body).Decode(dst); err != nil {
		return fmt.Errorf("listing %s on %s: decoding the response: %w", what, c.base.Host, err)
	}
	return nil
}

// serverMessage returns ": <message>" from a Kubernetes Status body, or "" when there is none.
func serverMessage(body io.Reader) string {
	msg, _ := serverStatus(body)
	return msg
}

// serverStatus reads a Kubernetes Status body: ": <message>" ("" without one) and the name of
// the object it is about ("" when it names none).
func serverStatus(body io.Reader) (message, name string) {
	var status struct {
		Message string `json:"message"`
		Details struct {
			Name string `json:"name"`
		} `json:"details"`
	}
	raw, _ := io.ReadAll(io.LimitReader(body, 64<<10))
	if json.Unmarshal(raw, &status) != nil {
		return "", ""
	}
	if status.Message != "" {
		message = ": " + status.Message
	}
	return message, status.Details.Name
}

// absent reports whether err is the server's 404: no object of that name, or no such resource.
func absent(err error) bool { return errors.Is(err, ErrNotFound) || errors.Is(err, ErrNotInstalled) }

// InstanceID returns the EC2 instance ID in an AWS provider ID (aws:///<zone>/<instance-id>),
// or "" when providerID is not one.
func InstanceID(providerID string) string {
	rest, ok := strings.CutPrefix(providerID, "aws://")
	if !ok {
		return ""
	}
	id := rest[strings.LastIndex(rest, "/")+1:]
	if !strings.HasPrefix(id, "i-") || len(id) <= len("i-") {
		return ""
	}
	return id
}

type nodeClaimItem struct {
	Metadata struct {
		Name              string            `json:"name"`
		Labels            map[string]string `json:"labels"`
		Annotations       map[string]string `json:"annotations"`
		DeletionTimestamp *string           `json:"deletionTimestamp"`
	} `json:"metadata"`
	Status struct {
		ImageID    string `json:"imageID"`
		ProviderID string `json:"providerID"`
		NodeName   string `json:"nodeName"`
	} `json:"status"`
}

func (it nodeClaimItem) nodeClaim() NodeClaim {
	m := it.Metadata
	return NodeClaim{
		Name:          m.Name,
		NodePool:      m.Labels[LabelNodePool],
		Labels:        m.Labels,
		NodePoolHash:  m.Annotations[AnnotationNodePoolHash],
		NodeClassHash: m.Annotations[AnnotationNodeClassHash],
		ImageID:       it.Status.ImageID,
		ProviderID:    it.Status.ProviderID,
		InstanceID:    InstanceID(it.Status.ProviderID),
		NodeName:      it.Status.NodeName,
		Deleting:      m.DeletionTimestamp != nil && *m.DeletionTimestamp != "",
	}
}

// Deployment is the part of an apps/v1 Deployment the provider reads: where it is, the service
// account its pods run as, and its containers' images, environment values and arguments.
type Deployment struct {
	Namespace, Name string
	ServiceAccount  string // "default" when the pod template names none
	Containers      []Container
}

// Container is one container of a Deployment's pod template.
type Container struct {
	Name, Image string
	Env         map[string]string // literal values only (valueFrom is left out)
	Args        []string
}

type deploymentItem struct {
	Metadata struct {
		Namespace string `json:"namespace"`
		Name      string `json:"name"`
	} `json:"metadata"`
	Spec struct {
		Template struct {
			Spec struct {
				ServiceAccountName string `json:"serviceAccountName"`
				Containers         []struct {
					Name  string   `json:"name"`
					Image string   `json:"image"`
					Args  []string `json:"args"`
					Env   []struct {
						Name  string `json:"name"`
						Value string `json:"value"`
					} `json:"env"`
				} `json:"containers"`
			} `json:"spec"`
		} `json:"template"`
	} `json:"spec"`
}

func (it deploymentItem) deployment() Deployment {
	d := Deployment{Namespace: it.Metadata.Namespace, Name: it.Metadata.Name, ServiceAccount: it.Spec.Template.Spec.ServiceAccountName}
	if d.ServiceAccount == "" {
		d.ServiceAccount = "default"
	}
	for _, c := range it.Spec.Template.Spec.Containers {
		out := Container{Name: c.Name, Image: c.Image, Args: c.Args, Env: map[string]string{}}
		for _, e := range c.Env {
			out.Env[e.Name] = e.Value
		}
		d.Containers = append(d.Containers, out)
	}
	return d
}

// Deployment reads one Deployment; nil when it does not exist.
func (c *Client) Deployment(ctx context.Context, namespace, name string) (*Deployment, error) {
	var it deploymentItem
	err := c.getJSON(ctx, "deployments", "/apis/apps/v1/namespaces/"+url.PathEscape(namespace)+"/deployments/"+url.PathEscape(name), url.Values{}, &it)
	if absent(err) { // 404: no such deployment
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	d := it.deployment()
	return &d, nil
}

// Deployments lists the Deployments of every namespace that carry the label selector.
func (c *Client) Deployments(ctx context.Context, selector string) ([]Deployment, error) {
	var list struct {
		Items []deploymentItem `json:"items"`
	}
	if err := c.getJSON(ctx, "deployments", "/apis/apps/v1/deployments", url.Values{"labelSelector": {selector}}, &list); err != nil {
		return nil, err
	}
	out := make([]Deployment, 0, len(list.Items))
	for _, it := range list.Items {
		out = append(out, it.deployment())
	}
	return out, nil
}

// ServiceAccountAnnotations reads a service account's annotations; nil, nil when it does not
// exist.
func (c *Client) ServiceAccountAnnotations(ctx context.Context, namespace, name string) (map[string]string, error) {
	var sa struct {
		Metadata struct {
			Annotations map[string]string `json:"annotations"`
		} `json:"metadata"`
	}
	err := c.getJSON(ctx, "serviceaccounts", "/api/v1/namespaces/"+url.PathEscape(namespace)+"/serviceaccounts/"+url.PathEscape(name), url.Values{}, &sa)
	if absent(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if sa.Metadata.Annotations == nil {
		sa.Metadata.Annotations = map[string]string{}
	}
	return sa.Metadata.Annotations, nil
}
