// Package clientapi is the client HTTP API of basalt-privacy (Orion's
// "client" port, 8888 by default), which the Ethereum node calls:
//
//	GET  /upcheck               "I'm up!"
//	GET  /peercount             number of distinct node URLs known (own included)
//	GET  /version               version text
//	GET  /knownnodes            [{"publicKey","nodeUrl"}] of other instances
//	POST /send                  application/json {"payload","from","to"|"privacyGroupId"} -> {"key"}
//	POST /sendraw               application/octet-stream, headers c11n-from, c11n-to (comma-separated) -> key
//	POST /receive               application/json {"key","to"} -> {"payload"}
//	POST /receive               application/vnd.orion.v1+json, same body -> {"payload","privacyGroupId","senderKey"}
//	POST /receiveraw            application/octet-stream, header c11n-key -> raw payload
//	POST /createPrivacyGroup    {"addresses","from","name","description","seed"} -> group
//	POST /deletePrivacyGroup    {"privacyGroupId","from"} -> "<id>" (a JSON string)
//	POST /findPrivacyGroup      {"addresses"} -> [group...]
//	POST /retrievePrivacyGroup  {"privacyGroupId"} -> group
//
// Errors answer {"error":"<Orion code>"} with Orion's statuses: 404 for a
// payload that is unknown or not decryptable here (/receive, /receiveraw)
// and for a missing group on /retrievePrivacyGroup, 413 PayloadTooLarge for
// a body or payload over the limit, 500 for everything else. With bearer
// tokens configured (Tokens, a Basalt feature), a request without a valid
// token answers 401 Unauthorized and one acting as a key its token does not
// allow 403 Forbidden. Statuses and codes are decided in one place, status
// below.
package clientapi

import (
	"cmp"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/basaltchain/basalt/internal/httpmw"
	"github.com/basaltchain/basalt/ptm"
	"github.com/basaltchain/basalt/ptm/discovery"
	"github.com/basaltchain/basalt/ptm/keys"
	"github.com/basaltchain/basalt/ptm/manager"
)

// Server holds what the client API handlers need.
type Server struct {
	Manager *manager.Manager
	Table   *discovery.Table
	Log     *slog.Logger
	Version string
	// MaxBody is the largest request body accepted, in bytes (0: no limit).
	MaxBody int64
	// Tokens, when set, are the bearer tokens every route but /upcheck
	// requires (clientapitokens).
	Tokens *Tokens
}

// Handler returns the client API.
func (s *Server) Handler() http.Handler {
	json := []string{ptm.MediaJSON}
	raw := []string{ptm.MediaBytes}
	router := ptm.NewRouter(
		ptm.UpcheckRoute,
		ptm.Route{Method: http.MethodGet, Path: "/peercount", Handler: s.peerCount},
		ptm.Route{Method: http.MethodGet, Path: "/version", Handler: func(w http.ResponseWriter, _ *http.Request) { ptm.WriteText(w, s.Version) }},
		ptm.Route{Method: http.MethodGet, Path: "/knownnodes", Handler: s.knownNodes},
		ptm.Route{Method: http.MethodPost, Path: "/send", Consumes: json, Handler: s.send},
		ptm.Route{Method: http.MethodPost, Path: "/sendraw", Consumes: raw, Handler: s.sendRaw},
		ptm.Route{Method: http.MethodPost, Path: "/receive", Consumes: json, Handler: s.receive(false)},
		ptm.Route{Method: http.MethodPost, Path: "/receive", Consumes: []string{ptm.MediaOrionV1}, Handler: s.receive(true)},
		ptm.Route{Method: http.MethodPost, Path: "/receiveraw", Consumes: raw, Handler: s.receiveRaw},
		ptm.Route{Method: http.MethodPost, Path: "/createPrivacyGroup", Consumes: json, Handler: s.createGroup},
		ptm.Route{Method: http.MethodPost, Path: "/deletePrivacyGroup", Consumes: json, Handler: s.deleteGroup},
		ptm.Route{Method: http.MethodPost, Path: "/findPrivacyGroup", Consumes: json, Handler: s.findGroup},
		ptm.Route{Method: http.MethodPost, Path: "/retrievePrivacyGroup", Consumes: json, Handler: s.retrieveGroup},
	)
	return ptm.Handler(router, s.MaxBody, s.authenticate)
}

func (s *Server) log() *slog.Logger {
	if s.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return s.Log
}

// endpoint names a route for status decisions.
type endpoint int

const (
	epOther endpoint = iota
	epReceive
	epRetrieve
)

// status is the one place an error becomes an HTTP status.
func status(ep endpoint, code ptm.Code) int {
	switch {
	case code == ptm.PayloadTooLarge:
		return http.StatusRequestEntityTooLarge
	case code == ptm.Unauthorized:
		return http.StatusUnauthorized
	case code == ptm.Forbidden:
		return http.StatusForbidden
	case ep == epReceive && (code == ptm.EnclavePayloadNotFound || code == ptm.EnclaveKeysCannotDecryptPayload):
		return http.StatusNotFound
	case ep == epRetrieve && code == ptm.PrivacyGroupNotFound:
		return http.StatusNotFound
	default:
		return http.StatusInternalServerError
	}
}

func (s *Server) fail(w http.ResponseWriter, r *http.Request, ep endpoint, err error) {
	code := ptm.CodeOf(err)
	st := status(ep, code)
	if st == http.StatusNotFound {
		// Besu asks for every marker transaction's payload, most of which
		// are other groups': a 404 is routine (as in Orion, debug only).
		s.log().Debug("client API not found", "path", r.URL.Path, "code", code, "err", err)
	} else {
		s.log().Warn("client API request failed", "path", r.URL.Path, "code", code, "err", err)
	}
	ptm.WriteError(w, st, code)
}

// decodeJSON reads the body, a JSON object, into v. Only the given field
// names are allowed, matched exactly: Orion's Jackson mapper refuses unknown
// properties, and encoding/json alone would match names case-insensitively
// (a mistyped "privacygroupid" would silently turn a group send into a
// legacy one).
func decodeJSON(r *http.Request, v any, fields ...string) error {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		if httpmw.IsTooLarge(err) {
			return ptm.Wrap(ptm.PayloadTooLarge, err)
		}
		return ptm.Wrap(ptm.ObjectJSONDeserialization, err)
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(body, &obj); err != nil {
		return ptm.Wrap(ptm.ObjectJSONDeserialization, err)
	}
	if obj == nil {
		return ptm.Errorf(ptm.ObjectJSONDeserialization, "body is not a JSON object")
	}
	for name := range obj {
		if !slices.Contains(fields, name) {
			return ptm.Errorf(ptm.ObjectJSONDeserialization, "unknown field %q (want %s)", name, strings.Join(fields, ", "))
		}
	}
	if err := json.Unmarshal(body, v); err != nil {
		return ptm.Wrap(ptm.ObjectJSONDeserialization, err)
	}
	return nil
}

func readRaw(r *http.Request) ([]byte, error) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		if httpmw.IsTooLarge(err) {
			return nil, ptm.Wrap(ptm.PayloadTooLarge, err)
		}
		return nil, ptm.Wrap(ptm.InvalidPayload, err)
	}
	return body, nil
}

func (s *Server) peerCount(w http.ResponseWriter, _ *http.Request) {
	ptm.WriteText(w, strconv.Itoa(len(s.Table.URLs())))
}

// KnownNode is an entry of /knownnodes.
type KnownNode struct {
	PublicKey string `json:"publicKey"`
	NodeURL   string `json:"nodeUrl"`
}

func (s *Server) knownNodes(w http.ResponseWriter, _ *http.Request) {
	out := []KnownNode{}
	for k, u := range s.Table.Entries() {
		if u != s.Table.Self() {
			out = append(out, KnownNode{PublicKey: k.String(), NodeURL: u})
		}
	}
	slices.SortFunc(out, func(a, b KnownNode) int {
		return cmp.Or(strings.Compare(a.NodeURL, b.NodeURL), strings.Compare(a.PublicKey, b.PublicKey))
	})
	ptm.WriteJSON(w, ptm.MediaJSON, out)
}

// b64 is a JSON string holding Base64 bytes. Set says the field was present
// (and not null); Bytes is nil when its text did not decode, which Orion
// reports as InvalidPayload rather than as a JSON error.
type b64 struct {
	Bytes []byte
	Set   bool
}

// UnmarshalJSON implements json.Unmarshaler.
func (b *b64) UnmarshalJSON(data []byte) error {
	if string(data) == "null" {
		return nil
	}
	var s string
	if err := json.Unmarshal(data, &s); err != nil {
		return err
	}
	b.Set = true
	raw, err := keys.DecodeBase64(s)
	if err != nil {
		b.Bytes = nil
		return nil
	}
	if raw == nil {
		raw = []byte{}
	}
	b.Bytes = raw
	return nil
}

type sendRequest struct {
	Payload        b64      `json:"payload"`
	From           *string  `json:"from"`
	To             []string `json:"to"`
	PrivacyGroupID *string  `json:"privacyGroupId"`
}

type sendResponse struct {
	Key string `json:"key"`
}

func (s *Server) send(w http.ResponseWriter, r *http.Request) {
	var req sendRequest
	if err := decodeJSON(r, &req, "payload", "from", "to", "privacyGroupId"); err != nil {
		s.fail(w, r, epOther, err)
		return
	}
	payload := req.Payload.Bytes
	if !req.Payload.Set {
		payload = []byte{} // absent: empty, which is invalid
	}
	key, err := s.Manager.Send(r.Context(), manager.SendRequest{Payload: payload, From: req.From, To: req.To, PrivacyGroupID: req.PrivacyGroupID})
	if err != nil {
		s.fail(w, r, epOther, err)
		return
	}
	ptm.WriteJSON(w, ptm.MediaJSON, sendResponse{Key: key})
}

// javaSplit splits like Java's String.split(","): trailing empty strings are
// dropped, and a string without a comma is one element (even "").
func javaSplit(s string) []string {
	parts := strings.Split(s, ",")
	if len(parts) == 1 {
		return parts
	}
	for len(parts) > 0 && parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	return parts
}

func (s *Server) sendRaw(w http.ResponseWriter, r *http.Request) {
	body, err := readRaw(r)
	if err != nil {
		s.fail(w, r, epOther, err)
		return
	}
	req := manager.SendRequest{Payload: body}
	if from, ok := header(r, "c11n-from"); ok {
		req.From = &from
	}
	if to, ok := header(r, "c11n-to"); ok {
		req.To = javaSplit(to)
	}
	key, err := s.Manager.Send(r.Context(), req)
	if err != nil {
		s.fail(w, r, epOther, err)
		return
	}
	ptm.WriteBytes(w, []byte(key))
}

// header returns a request header and whether it was present.
func header(r *http.Request, name string) (string, bool) {
	v := r.Header.Values(name)
	if len(v) == 0 {
		return "", false
	}
	return v[0], true
}

type receiveRequest struct {
	Key *string `json:"key"`
	To  *string `json:"to"`
}

// receiveResponse is the answer of /receive: the JSON media type gives the
// payload only, Orion's v1 media type adds the group id and the sender.
type receiveResponse struct {
	Payload        []byte `json:"payload"`
	PrivacyGroupID string `json:"privacyGroupId,omitempty"`
	SenderKey      string `json:"senderKey,omitempty"`
}

func (s *Server) receive(v1 bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var req receiveRequest
		if err := decodeJSON(r, &req, "key", "to"); err != nil {
			s.fail(w, r, epReceive, err)
			return
		}
		if req.Key == nil {
			s.fail(w, r, epReceive, ptm.Errorf(ptm.ObjectJSONDeserialization, "key is missing"))
			return
		}
		got, err := s.Manager.Receive(r.Context(), *req.Key, req.To)
		if err != nil {
			s.fail(w, r, epReceive, err)
			return
		}
		if v1 {
			ptm.WriteJSON(w, ptm.MediaOrionV1, receiveResponse{Payload: got.Payload, PrivacyGroupID: got.PrivacyGroupID, SenderKey: got.SenderKey})
		} else {
			ptm.WriteJSON(w, ptm.MediaJSON, receiveResponse{Payload: got.Payload})
		}
	}
}

func (s *Server) receiveRaw(w http.ResponseWriter, r *http.Request) {
	key, _ := header(r, "c11n-key")
	got, err := s.Manager.Receive(r.Context(), key, nil) // c11n-to is not read (Orion)
	if err != nil {
		s.fail(w, r, epReceive, err)
		return
	}
	ptm.WriteBytes(w, got.Payload)
}

type createGroupRequest struct {
	Addresses   []string `json:"addresses"`
	From        *string  `json:"from"`
	Name        *string  `json:"name"`
	Description *string  `json:"description"`
	Seed        *b64     `json:"seed"`
}

func (s *Server) createGroup(w http.ResponseWriter, r *http.Request) {
	var req createGroupRequest
	if err := decodeJSON(r, &req, "addresses", "from", "name", "description", "seed"); err != nil {
		s.fail(w, r, epOther, err)
		return
	}
	var seed []byte
	if req.Seed != nil && req.Seed.Set {
		if req.Seed.Bytes == nil {
			s.fail(w, r, epOther, ptm.Errorf(ptm.CreateGroupInvalidParams, "seed is not Base64"))
			return
		}
		seed = req.Seed.Bytes
	}
	g, err := s.Manager.CreateGroup(r.Context(), manager.CreateGroupRequest{
		Addresses: req.Addresses, From: req.From, Name: req.Name, Description: req.Description, Seed: seed,
	})
	if err != nil {
		s.fail(w, r, epOther, err)
		return
	}
	ptm.WriteJSON(w, ptm.MediaJSON, g)
}

type deleteGroupRequest struct {
	PrivacyGroupID *string `json:"privacyGroupId"`
	From           *string `json:"from"`
}

func (s *Server) deleteGroup(w http.ResponseWriter, r *http.Request) {
	var req deleteGroupRequest
	if err := decodeJSON(r, &req, "privacyGroupId", "from"); err != nil {
		s.fail(w, r, epOther, err)
		return
	}
	if req.PrivacyGroupID == nil {
		s.fail(w, r, epOther, ptm.Errorf(ptm.PrivacyGroupNotDeleted, "privacyGroupId is missing"))
		return
	}
	id, err := s.Manager.DeleteGroup(r.Context(), *req.PrivacyGroupID, req.From)
	if err != nil {
		s.fail(w, r, epOther, err)
		return
	}
	ptm.WriteJSON(w, ptm.MediaJSON, id)
}

type findGroupRequest struct {
	Addresses []string `json:"addresses"`
}

func (s *Server) findGroup(w http.ResponseWriter, r *http.Request) {
	var req findGroupRequest
	if err := decodeJSON(r, &req, "addresses"); err != nil {
		s.fail(w, r, epOther, err)
		return
	}
	if req.Addresses == nil {
		s.fail(w, r, epOther, ptm.Errorf(ptm.ObjectJSONDeserialization, "addresses is missing"))
		return
	}
	groups, err := s.Manager.FindGroups(r.Context(), req.Addresses)
	if err != nil {
		s.fail(w, r, epOther, err)
		return
	}
	ptm.WriteJSON(w, ptm.MediaJSON, groups)
}

type retrieveGroupRequest struct {
	PrivacyGroupID *string `json:"privacyGroupId"`
}

func (s *Server) retrieveGroup(w http.ResponseWriter, r *http.Request) {
	var req retrieveGroupRequest
	if err := decodeJSON(r, &req, "privacyGroupId"); err != nil {
		s.fail(w, r, epRetrieve, err)
		return
	}
	if req.PrivacyGroupID == nil {
		// Orion answers a null id with 400.
		s.log().Debug("retrievePrivacyGroup without privacyGroupId")
		ptm.WriteError(w, http.StatusBadRequest, ptm.ObjectJSONDeserialization)
		return
	}
	g, err := s.Manager.RetrieveGroup(r.Context(), *req.PrivacyGroupID)
	if err != nil {
		s.fail(w, r, epRetrieve, err)
		return
	}
	ptm.WriteJSON(w, ptm.MediaJSON, g)
}
