package acctest

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// CapacityStub is a loopback EC2 endpoint for tests of capacity reservations and placement
// groups. LocalStack 4.14 (moto-ext 5.1) implements none of CreatePlacementGroup,
// DescribePlacementGroups, CreateCapacityReservation and DescribeCapacityReservations: each
// answers InternalFailure "The ... action has not been implemented". The stub answers the two
// Describe calls from the objects a test gives it, the way EC2 does (the filters Karpenter
// uses, EC2's errors for unknown ids and names), and forwards every other call to LocalStack.
type CapacityStub struct {
	server *httptest.Server
	proxy  *httputil.ReverseProxy

	mu           sync.Mutex
	reservations []StubReservation
	groups       []StubPlacementGroup
	calls        map[string]int
}

// StubReservation is one capacity reservation the stub serves.
type StubReservation struct {
	ID, InstanceType, Zone, State, OwnerID, InstanceMatchCriteria, ReservationType string
	Available, Total                                                               int
	EndDate                                                                        time.Time // zero: none
	Tags                                                                           map[string]string
}

// StubPlacementGroup is one placement group the stub serves.
type StubPlacementGroup struct {
	ID, Name, Strategy, State string
	PartitionCount            int
}

// NewCapacityStub starts a stub in front of Endpoint() for the test.
func NewCapacityStub(t testing.TB) *CapacityStub {
	t.Helper()
	s := &CapacityStub{proxy: emulatorProxy(t, "capacity stub"), calls: map[string]int{}}
	s.server = httptest.NewServer(s)
	t.Cleanup(s.server.Close)
	return s
}

// URL is the stub's endpoint, for the provider's `endpoints.ec2`.
func (s *CapacityStub) URL() string { return s.server.URL }

// SetReservations replaces the reservations the stub serves.
func (s *CapacityStub) SetReservations(rs ...StubReservation) {
	s.mu.Lock()
	s.reservations = append([]StubReservation(nil), rs...)
	s.mu.Unlock()
}

// SetPlacementGroups replaces the placement groups the stub serves.
func (s *CapacityStub) SetPlacementGroups(gs ...StubPlacementGroup) {
	s.mu.Lock()
	s.groups = append([]StubPlacementGroup(nil), gs...)
	s.mu.Unlock()
}

// Calls is how many times the stub answered action.
func (s *CapacityStub) Calls(action string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[action]
}

func (s *CapacityStub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	form, _ := url.ParseQuery(string(body))
	switch action := form.Get("Action"); action {
	case "DescribeCapacityReservations", "DescribePlacementGroups":
		s.mu.Lock()
		s.calls[action]++
		s.mu.Unlock()
		var doc any
		var code string
		if action == "DescribeCapacityReservations" {
			doc, code = s.reservationsResponse(form)
		} else {
			doc, code = s.placementGroupsResponse(form)
		}
		if code != "" {
			writeAWSError(w, "ec2", http.StatusBadRequest, code, "stub: "+code)
			return
		}
		out, err := xml.Marshal(doc)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "text/xml")
		_, _ = w.Write(append([]byte(xml.Header), out...))
	default:
		forward(s.proxy, w, r, body)
	}
}

// emulatorProxy is a reverse proxy to Endpoint(), which must be on a loopback address: a stub
// answers what the emulator cannot and forwards the rest there.
func emulatorProxy(t testing.TB, stub string) *httputil.ReverseProxy {
	t.Helper()
	target, err := url.Parse(Endpoint())
	if err != nil {
		t.Fatalf("%s: %v", stub, err)
	}
	if err := requireLoopback(target.Hostname()); err != nil {
		t.Fatalf("%s: %v", stub, err)
	}
	return httputil.NewSingleHostReverseProxy(target)
}

// forward sends a request whose body the stub has read on through proxy, body restored.
func forward(proxy *httputil.ReverseProxy, w http.ResponseWriter, r *http.Request, body []byte) {
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	proxy.ServeHTTP(w, r)
}

// indexed returns the values of prefix.1, prefix.2, … in order.
func indexed(form url.Values, prefix string) []string {
	var out []string
	for i := 1; ; i++ {
		v, ok := form[prefix+"."+strconv.Itoa(i)]
		if !ok {
			return out
		}
		out = append(out, v...)
	}
}

type stubFilter struct {
	name   string
	values []string
}

func filtersOf(form url.Values) []stubFilter {
	var out []stubFilter
	for i := 1; ; i++ {
		p := "Filter." + strconv.Itoa(i)
		name := form.Get(p + ".Name")
		if name == "" {
			return out
		}
		out = append(out, stubFilter{name: name, values: indexed(form, p+".Value")})
	}
}

// matches applies EC2's filter semantics to one object: fields by filter name, tag:k, tag-key.
func matches(filters []stubFilter, fields, tags map[string]string) bool {
	for _, f := range filters {
		switch {
		case f.name == "tag-key":
			if !slices.ContainsFunc(f.values, func(k string) bool { _, ok := tags[k]; return ok }) {
				return false
			}
		case strings.HasPrefix(f.name, "tag:"):
			v, ok := tags[strings.TrimPrefix(f.name, "tag:")]
			if !ok || !slices.Contains(f.values, v) {
				return false
			}
		default:
			v, known := fields[f.name]
			if !known {
				panic("capacity stub: unsupported filter " + f.name)
			}
			if !slices.Contains(f.values, v) {
				return false
			}
		}
	}
	return true
}

type xmlTag struct {
	Key   string `xml:"key"`
	Value string `xml:"value"`
}

func xmlTags(tags map[string]string) []xmlTag {
	out := make([]xmlTag, 0, len(tags))
	for k, v := range tags {
		out = append(out, xmlTag{k, v})
	}
	slices.SortFunc(out, func(a, b xmlTag) int { return strings.Compare(a.Key, b.Key) })
	return out
}

type xmlReservation struct {
	ID                    string   `xml:"capacityReservationId"`
	OwnerID               string   `xml:"ownerId"`
	InstanceType          string   `xml:"instanceType"`
	InstancePlatform      string   `xml:"instancePlatform"`
	Zone                  string   `xml:"availabilityZone"`
	Tenancy               string   `xml:"tenancy"`
	Total                 int      `xml:"totalInstanceCount"`
	Available             int      `xml:"availableInstanceCount"`
	State                 string   `xml:"state"`
	EndDate               string   `xml:"endDate,omitempty"`
	EndDateType           string   `xml:"endDateType"`
	InstanceMatchCriteria string   `xml:"instanceMatchCriteria"`
	ReservationType       string   `xml:"reservationType"`
	Tags                  []xmlTag `xml:"tagSet>item"`
}

type xmlReservationsResponse struct {
	XMLName      xml.Name         `xml:"http://ec2.amazonaws.com/doc/2016-11-15/ DescribeCapacityReservationsResponse"`
	RequestID    string           `xml:"requestId"`
	Reservations []xmlReservation `xml:"capacityReservationSet>item"`
}

func (s *CapacityStub) reservationsResponse(form url.Values) (any, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ids, filters := indexed(form, "CapacityReservationId"), filtersOf(form)
	for _, id := range ids {
		if !slices.ContainsFunc(s.reservations, func(r StubReservation) bool { return r.ID == id }) {
			return nil, "InvalidCapacityReservationId.NotFound"
		}
	}
	resp := xmlReservationsResponse{RequestID: "stub"}
	for _, r := range s.reservations {
		if len(ids) > 0 && !slices.Contains(ids, r.ID) {
			continue
		}
		fields := map[string]string{"state": r.State, "owner-id": r.OwnerID, "instance-match-criteria": r.InstanceMatchCriteria,
			"instance-type": r.InstanceType, "availability-zone": r.Zone}
		if !matches(filters, fields, r.Tags) {
			continue
		}
		x := xmlReservation{ID: r.ID, OwnerID: r.OwnerID, InstanceType: r.InstanceType, InstancePlatform: "Linux/UNIX", Zone: r.Zone,
			Tenancy: "default", Total: r.Total, Available: r.Available, State: r.State, EndDateType: "unlimited",
			InstanceMatchCriteria: r.InstanceMatchCriteria, ReservationType: r.ReservationType, Tags: xmlTags(r.Tags)}
		if !r.EndDate.IsZero() {
			x.EndDate, x.EndDateType = r.EndDate.UTC().Format(time.RFC3339), "limited"
		}
		resp.Reservations = append(resp.Reservations, x)
	}
	return resp, ""
}

type xmlPlacementGroup struct {
	Name           string `xml:"groupName"`
	ID             string `xml:"groupId"`
	State          string `xml:"state"`
	Strategy       string `xml:"strategy"`
	PartitionCount int    `xml:"partitionCount,omitempty"`
}

type xmlPlacementGroupsResponse struct {
	XMLName   xml.Name            `xml:"http://ec2.amazonaws.com/doc/2016-11-15/ DescribePlacementGroupsResponse"`
	RequestID string              `xml:"requestId"`
	Groups    []xmlPlacementGroup `xml:"placementGroupSet>item"`
}

func (s *CapacityStub) placementGroupsResponse(form url.Values) (any, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ids, names, filters := indexed(form, "GroupId"), indexed(form, "GroupName"), filtersOf(form)
	resp := xmlPlacementGroupsResponse{RequestID: "stub"}
	for _, g := range s.groups {
		if (len(ids) > 0 && !slices.Contains(ids, g.ID)) || (len(names) > 0 && !slices.Contains(names, g.Name)) {
			continue
		}
		if !matches(filters, map[string]string{"group-name": g.Name, "state": g.State, "strategy": g.Strategy}, nil) {
			continue
		}
		resp.Groups = append(resp.Groups, xmlPlacementGroup{Name: g.Name, ID: g.ID, State: g.State, Strategy: g.Strategy, PartitionCount: g.PartitionCount})
	}
	if len(resp.Groups) == 0 && len(names) > 0 {
		return nil, "InvalidPlacementGroup.Unknown"
	}
	if len(resp.Groups) == 0 && len(ids) > 0 {
		return nil, "InvalidPlacementGroupId.NotFound"
	}
	return resp, ""
}

// String describes the stub for failure messages.
func (s *CapacityStub) String() string {
	return fmt.Sprintf("capacity stub at %s in front of %s", s.URL(), Endpoint())
}
