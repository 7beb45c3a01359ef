package awsfake

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	awspricing "github.com/aws/aws-sdk-go-v2/service/pricing"
	pricingtypes "github.com/aws/aws-sdk-go-v2/service/pricing/types"
	smithy "github.com/aws/smithy-go"
)

// pricingTarget prefixes the X-Amz-Target header of the Pricing API's operations.
const pricingTarget = "AWSPriceListService."

// ServeHTTP serves the Pricing API's JSON 1.1 protocol (a POST whose X-Amz-Target names the
// operation, a JSON body each way) for GetProducts, so the fake can stand behind an endpoint
// (internal/acctest's pricing stub). The request goes through GetProducts as an SDK call does:
// recorded, hooked, failed as configured. Another operation answers InvalidParameterException.
// A failure answers the API's JSON error: 500 for an error that is no API error or a server
// fault, 400 otherwise.
func (f *Pricing) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.requests++
	reqID := fmt.Sprintf("req-%d", f.requests)
	f.mu.Unlock()
	op, ok := strings.CutPrefix(r.Header.Get("X-Amz-Target"), pricingTarget)
	if !ok || op != "GetProducts" {
		writePricingError(w, reqID, &pricingtypes.InvalidParameterException{
			Message: aws.String(fmt.Sprintf("awsfake: the HTTP front implements GetProducts only, not %q", op))})
		return
	}
	var req struct {
		ServiceCode, FormatVersion, NextToken *string
		MaxResults                            *int32
		Filters                               []struct{ Type, Field, Value string }
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writePricingError(w, reqID, &pricingtypes.InvalidParameterException{Message: aws.String("awsfake: " + err.Error())})
		return
	}
	in := &awspricing.GetProductsInput{ServiceCode: req.ServiceCode, FormatVersion: req.FormatVersion, NextToken: req.NextToken, MaxResults: req.MaxResults}
	for _, flt := range req.Filters {
		in.Filters = append(in.Filters, pricingtypes.Filter{Type: pricingtypes.FilterType(flt.Type), Field: aws.String(flt.Field), Value: aws.String(flt.Value)})
	}
	out, err := f.GetProducts(r.Context(), in)
	if err != nil {
		writePricingError(w, reqID, err)
		return
	}
	b, err := json.Marshal(struct {
		FormatVersion string
		PriceList     []string
		NextToken     string `json:",omitempty"`
	}{aws.ToString(out.FormatVersion), out.PriceList, aws.ToString(out.NextToken)})
	if err != nil {
		writePricingError(w, reqID, err)
		return
	}
	w.Header().Set("Content-Type", "application/x-amz-json-1.1")
	w.Header().Set("X-Amzn-RequestId", reqID)
	_, _ = w.Write(b)
}

// writePricingError answers an error as the JSON 1.1 protocol does: its code in __type and
// X-Amzn-ErrorType, its message in Message.
func writePricingError(w http.ResponseWriter, reqID string, err error) {
	code, msg, status := "InternalErrorException", err.Error(), http.StatusInternalServerError
	var ae smithy.APIError
	if errors.As(err, &ae) {
		code, msg = ae.ErrorCode(), ae.ErrorMessage()
		if ae.ErrorFault() != smithy.FaultServer {
			status = http.StatusBadRequest
		}
	}
	b, _ := json.Marshal(map[string]string{"__type": code, "Message": msg})
	w.Header().Set("Content-Type", "application/x-amz-json-1.1")
	w.Header().Set("X-Amzn-ErrorType", code)
	w.Header().Set("X-Amzn-RequestId", reqID)
	w.WriteHeader(status)
	_, _ = w.Write(b)
}
