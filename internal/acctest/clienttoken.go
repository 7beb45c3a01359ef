package acctest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/url"
	"strings"
	"sync"
)

// Client-token emulation (FaultConfig.ClientTokens).
//
// EC2 makes a call that carries a ClientToken idempotent: the token stays bound to its first
// request for at least 24 hours (also after the instances it launched are gone); a repeat with
// the same token and the same parameters gets the original answer and launches nothing, and the
// same token with other parameters fails with IdempotentParameterMismatch (HTTP 400). Tokens
// are scoped to an account and a region. LocalStack ignores the token, so a retried CreateFleet
// launches a second set of instances there; the proxy restores EC2's behaviour in front of it.
//
// Simplifications:
//   - Only a successful (2xx) answer binds a token. EC2 binds a token when it accepts the
//     request, which can be before a failure that comes later; here a failed first attempt
//     leaves the token free, and the next request with it is forwarded.
//   - The access key of the SigV4 credential stands in for the account, so two access keys of
//     one LocalStack account have separate tokens.
//   - Bindings last as long as the proxy (a test), well under EC2's 24 hours; they never expire.
//   - A request that arrives while an earlier one with the same token is still upstream waits
//     for it and then gets its answer (or, if it failed, is forwarded itself).
//   - A replay is the stored answer byte for byte, request id included.

// clientTokenActions are the EC2 actions whose ClientToken the proxy honours. RunInstances,
// CreateLaunchTemplate and others take a token on EC2 too; add them when a test needs them.
var clientTokenActions = map[string]bool{"CreateFleet": true}

// idempotentMismatchMessage is EC2's message for IdempotentParameterMismatch.
const idempotentMismatchMessage = "Arguments on this idempotent request are inconsistent with arguments used in previous request(s)."

// tokenKey scopes a token the way EC2 does: per account (access key here) and region.
type tokenKey struct{ accessKey, region, token string }

// tokenCall is a request that carries a client token the proxy honours.
type tokenCall struct {
	key         tokenKey
	fingerprint string // of every parameter but ClientToken
}

// storedAnswer is the upstream's answer a token is bound to.
type storedAnswer struct {
	status int
	header http.Header
	body   []byte
}

type tokenEntry struct {
	fingerprint string
	done        chan struct{} // closed when the request that holds the token has finished
	answer      *storedAnswer // set (once, under the store's lock) when the token is bound
}

type tokenStore struct {
	mu sync.Mutex
	m  map[tokenKey]*tokenEntry
}

type tokenVerdict int

const (
	tokenFirst    tokenVerdict = iota // the request holds the token: forward it, then finish
	tokenReplay                       // same token, same parameters: answer the stored answer
	tokenMismatch                     // same token, other parameters: IdempotentParameterMismatch
)

// tokenCallOf recognises an EC2 request of a token action that carries a non-empty ClientToken.
// The SDK serializes the query body once per operation and resends it unchanged on retries
// (aws-sdk-go-v2 fills a missing ClientToken with a UUID before its retry loop); what varies per
// attempt is in headers only (amz-sdk-request, X-Amz-Date, Authorization's signature), which
// the fingerprint ignores. Version and TagSpecification are parameters like any other.
func tokenCallOf(r *http.Request, service, action string, body []byte) (tokenCall, bool) {
	if service != "ec2" || !clientTokenActions[action] {
		return tokenCall{}, false
	}
	params := r.URL.Query()
	if strings.HasPrefix(r.Header.Get("Content-Type"), "application/x-www-form-urlencoded") {
		form, err := url.ParseQuery(string(body))
		if err != nil {
			return tokenCall{}, false
		}
		for k, vs := range form {
			params[k] = append(params[k], vs...)
		}
	}
	token := params.Get("ClientToken")
	if token == "" {
		return tokenCall{}, false
	}
	params.Del("ClientToken")
	sum := sha256.Sum256([]byte(params.Encode())) // Encode sorts the keys: a canonical form
	accessKey, region := credentialOf(r)
	return tokenCall{key: tokenKey{accessKey: accessKey, region: region, token: token}, fingerprint: hex.EncodeToString(sum[:])}, true
}

// credentialOf reads the access key and region of the SigV4 credential scope.
func credentialOf(r *http.Request) (accessKey, region string) {
	_, cred, ok := strings.Cut(r.Header.Get("Authorization"), "Credential=")
	if !ok {
		return "", ""
	}
	cred, _, _ = strings.Cut(cred, ",")
	parts := strings.Split(cred, "/")
	if len(parts) < 5 {
		return "", ""
	}
	return parts[0], parts[len(parts)-3]
}

// claim decides what to do with a token call. For tokenFirst the caller holds the token and
// must call finish exactly once. A call whose token is held by a request still in flight waits
// for it; the error is the context's, when the client gives up first.
func (s *tokenStore) claim(ctx context.Context, c tokenCall) (tokenVerdict, *storedAnswer, *tokenEntry, error) {
	s.mu.Lock()
	for {
		e := s.m[c.key]
		switch {
		case e == nil:
			e = &tokenEntry{fingerprint: c.fingerprint, done: make(chan struct{})}
			s.m[c.key] = e
			s.mu.Unlock()
			return tokenFirst, nil, e, nil
		case e.answer != nil:
			ans := e.answer
			s.mu.Unlock()
			if e.fingerprint != c.fingerprint {
				return tokenMismatch, nil, nil, nil
			}
			return tokenReplay, ans, nil, nil
		}
		s.mu.Unlock()
		select {
		case <-e.done:
		case <-ctx.Done():
			return 0, nil, nil, ctx.Err()
		}
		s.mu.Lock()
	}
}

// finish ends the request that holds a token: it binds the token to ans, or, with a nil ans,
// frees the token for the next request.
func (s *tokenStore) finish(c tokenCall, e *tokenEntry, ans *storedAnswer) {
	s.mu.Lock()
	if ans != nil {
		e.answer = ans
	} else if s.m[c.key] == e {
		delete(s.m, c.key)
	}
	s.mu.Unlock()
	close(e.done)
}

// countToken adds a token event to the action's counters.
func (p *FaultProxy) countToken(action string, v tokenVerdict) {
	p.mu.Lock()
	defer p.mu.Unlock()
	st := p.stats[action]
	if st == nil { // decide creates it first; stay safe anyway
		return
	}
	switch v {
	case tokenFirst:
		st.TokensBound++
	case tokenReplay:
		st.TokenReplays++
	case tokenMismatch:
		st.TokenMismatches++
	}
}

// honourToken handles a token call before it is forwarded. It returns done = true when the
// request has been answered (a replay, a mismatch, or a client that went away while waiting).
// Otherwise, when the request holds a token, release must be called with the upstream's answer
// (status 0 when there is none) before that answer is written or dropped: a 2xx answer binds
// the token, anything else frees it. Later calls of release, and release for a request that
// holds no token, do nothing.
func (p *FaultProxy) honourToken(w http.ResponseWriter, r *http.Request, service, action string, body []byte,
	fault Fault) (done bool, release func(status int, header http.Header, body []byte)) {
	noop := func(int, http.Header, []byte) {}
	if p.tokens == nil {
		return false, noop
	}
	c, ok := tokenCallOf(r, service, action, body)
	if !ok {
		return false, noop
	}
	verdict, ans, e, err := p.tokens.claim(r.Context(), c)
	if err != nil {
		return true, noop
	}
	if verdict != tokenFirst {
		p.countToken(action, verdict)
		if fault == FaultResetAfterForward { // the "call" took effect (as a replay); its answer is lost
			resetConn(w)
			return true, noop
		}
		if verdict == tokenMismatch {
			writeAWSError(w, service, http.StatusBadRequest, "IdempotentParameterMismatch", idempotentMismatchMessage)
			return true, noop
		}
		h := ans.header.Clone()
		h.Set("X-Fault-Proxy", "ClientTokenReplay")
		writeAnswer(w, ans.status, h, ans.body)
		return true, noop
	}
	var once sync.Once
	return false, func(status int, header http.Header, body []byte) {
		once.Do(func() {
			var bound *storedAnswer
			if status >= 200 && status < 300 {
				bound = &storedAnswer{status: status, header: header.Clone(), body: append([]byte(nil), body...)}
			}
			p.tokens.finish(c, e, bound)
			if bound != nil {
				p.countToken(action, tokenFirst)
			}
		})
	}
}
