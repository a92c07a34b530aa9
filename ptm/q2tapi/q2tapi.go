// Package q2tapi is basalt-privacy's Tessera Q2T API: what GoQuorum 24.4.1
// calls on its transaction manager for standard private transactions, on a
// port of its own (q2tport). Payloads are the manager's, pushed to other
// instances over the node API as for the Orion client API; they are named
// here by their Tessera key (Base64 SHA3-512 of the cipher text, 64 bytes).
//
//	GET  /upcheck                               "I'm up!"
//	GET  /version                               version text
//	GET  /version/api                           ["1.0"]
//	POST /send                  JSON {payload,from?,to[]} -> 201 {key,managedParties,senderKey}
//	POST /storeraw              JSON {payload,from?}      -> 200 {key}
//	POST /sendsignedtx          JSON {hash,to[]}          -> 201 {key,managedParties,senderKey}
//	POST /sendsignedtx          octet-stream raw key, header c11n-to -> 200 Base64 key
//	                            (headers Tesserasender, Tesseramanagedparties)
//	GET  /transaction/{key}     ?to=&isRaw=               -> {payload,affectedContractTransactions,execHash,privacyFlag,managedParties,senderKey}
//	GET  /transaction/{key}/isSender                      -> "true" | "false"
//	GET  /transaction/{key}/participants                  -> comma-separated keys
//	GET  /transaction/{key}/mandatory                     -> "" (no payload has mandatory recipients)
//	GET  /partyinfo/keys                                  -> {"keys":[{"key"}]}
//
// Only API version 1.0 is advertised, so GoQuorum itself refuses privacy
// enhancements (party protection, private state validation), mandatory
// recipients, multitenancy and multiple private states before calling; a
// client that asks for them anyway is answered 400 (a request with a
// privacy flag, mandatory recipients, affected contracts, an exec hash or a
// privacy group id) or 501 (/groups/..., /encodedpayload/...) with a text
// saying what is not supported.
//
// Statuses: an unknown key, or one no hosted key opens, is 404 — GoQuorum
// reads 404 as "not a party" and any other failure while importing a block
// as fatal. Malformed input is 400, a body over the limit 413, a peer that
// could not take a payload 502, anything else 500. Error bodies are
// text/plain, as Tessera's.
package q2tapi

import (
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strings"

	"github.com/basaltchain/basalt/internal/httpmw"
	"github.com/basaltchain/basalt/ptm"
	"github.com/basaltchain/basalt/ptm/discovery"
	"github.com/basaltchain/basalt/ptm/keys"
	"github.com/basaltchain/basalt/ptm/manager"
	"github.com/basaltchain/basalt/ptm/payload"
)

// APIVersions is what GET /version/api answers: the Q2T versions served.
// GoQuorum picks its features by the highest (2.0 privacy enhancements, 2.1
// multitenancy, 3.0 multiple private states, 4.0 mandatory recipients), none
// of which basalt-privacy serves.
var APIVersions = []string{"1.0"}

// Server holds what the Q2T handlers need.
type Server struct {
	Manager *manager.Manager
	Table   *discovery.Table
	Log     *slog.Logger
	Version string
	// MaxBody is the largest request body accepted, in bytes (0: no limit).
	MaxBody int64
}

// Handler returns the Q2T API.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /upcheck", func(w http.ResponseWriter, _ *http.Request) { ptm.WriteText(w, ptm.Upcheck) })
	mux.HandleFunc("GET /version", func(w http.ResponseWriter, _ *http.Request) { ptm.WriteText(w, s.Version) })
	mux.HandleFunc("GET /version/api", func(w http.ResponseWriter, _ *http.Request) { writeJSON(w, http.StatusOK, APIVersions) })
	mux.HandleFunc("POST /send", s.send)
	mux.HandleFunc("POST /storeraw", s.storeRaw)
	mux.HandleFunc("POST /sendsignedtx", s.sendSigned)
	mux.HandleFunc("GET /transaction/{key}", s.receive)
	mux.HandleFunc("GET /transaction/{key}/isSender", s.isSender)
	mux.HandleFunc("GET /transaction/{key}/participants", s.participants)
	mux.HandleFunc("GET /transaction/{key}/mandatory", s.mandatory)
	mux.HandleFunc("GET /partyinfo/keys", s.partyKeys)
	mux.HandleFunc("/groups/", refuse("privacy groups of multiple private states (MPS) are not supported; run GoQuorum with a single private state"))
	mux.HandleFunc("/encodedpayload/", refuse("encoded payloads (contract extension, eth_decryptQuorumPayload) are not supported"))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeText(w, http.StatusNotFound, "no Q2T route for "+r.Method+" "+r.URL.Path)
	})
	tooLarge := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		writeText(w, http.StatusRequestEntityTooLarge, "request body too large")
	})
	return httpmw.Chain(mux, httpmw.BodyLimit(s.MaxBody, tooLarge))
}

func (s *Server) log() *slog.Logger {
	if s.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return s.Log
}

func refuse(why string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) { writeText(w, http.StatusNotImplemented, why) }
}

// errUnsupported marks a request for a feature basalt-privacy does not
// serve.
var errUnsupported = errors.New("not supported by basalt-privacy")

// status is the one place an error becomes an HTTP status.
func status(err error) int {
	if errors.Is(err, errUnsupported) {
		return http.StatusBadRequest
	}
	switch ptm.CodeOf(err) {
	case ptm.EnclavePayloadNotFound, ptm.EnclaveKeysCannotDecryptPayload:
		return http.StatusNotFound
	case ptm.PayloadTooLarge:
		return http.StatusRequestEntityTooLarge
	case ptm.InvalidPayload, ptm.ObjectJSONDeserialization, ptm.EnclaveDecodePublicKey,
		ptm.EnclaveNoMatchingPrivateKey, ptm.NoSenderKey, ptm.Forbidden:
		return http.StatusBadRequest
	case ptm.NodeMissingPeerURL, ptm.NodePushingToPeer, ptm.NodePropagatingToAllPeers:
		return http.StatusBadGateway
	default:
		return http.StatusInternalServerError
	}
}

func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
	st := status(err)
	if st == http.StatusNotFound {
		// GoQuorum asks for every private transaction's payload while
		// importing blocks, most of which are others': routine.
		s.log().Debug("Q2T not found", "path", r.URL.Path, "err", err)
	} else {
		s.log().Warn("Q2T request failed", "path", r.URL.Path, "status", st, "err", err)
	}
	writeText(w, st, err.Error())
}

func writeText(w http.ResponseWriter, st int, msg string) {
	w.Header().Set("Content-Type", ptm.MediaText)
	w.WriteHeader(st)
	io.WriteString(w, msg)
}

func writeJSON(w http.ResponseWriter, st int, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		writeText(w, http.StatusInternalServerError, err.Error())
		return
	}
	w.Header().Set("Content-Type", ptm.MediaJSON)
	w.WriteHeader(st)
	w.Write(data)
}

// sendRequest is the body of /send, /storeraw and /sendsignedtx (each uses
// some fields). The fields of features not served are read only to refuse
// them.
type sendRequest struct {
	Payload                      []byte          `json:"payload"`
	Hash                         []byte          `json:"hash"`
	From                         *string         `json:"from"`
	To                           []string        `json:"to"`
	AffectedContractTransactions []string        `json:"affectedContractTransactions"`
	ExecHash                     string          `json:"execHash"`
	PrivacyFlag                  int             `json:"privacyFlag"`
	MandatoryRecipients          []string        `json:"mandatoryRecipients"`
	PrivacyGroupID               json.RawMessage `json:"privacyGroupId"`
}

// decode reads a JSON request with only the given fields (matched exactly:
// a field of a feature this API does not know must not be dropped
// silently) and refuses the fields of features not served.
func decode(r *http.Request, fields ...string) (*sendRequest, error) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		if httpmw.IsTooLarge(err) {
			return nil, ptm.Wrap(ptm.PayloadTooLarge, err)
		}
		return nil, ptm.Wrap(ptm.InvalidPayload, err)
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(body, &obj); err != nil || obj == nil {
		return nil, ptm.Errorf(ptm.ObjectJSONDeserialization, "body is not a JSON object")
	}
	for name := range obj {
		if !slices.Contains(fields, name) {
			return nil, ptm.Errorf(ptm.ObjectJSONDeserialization, "unknown field %q (want %s)", name, strings.Join(fields, ", "))
		}
	}
	var req sendRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, ptm.Wrap(ptm.ObjectJSONDeserialization, err)
	}
	switch {
	case req.PrivacyFlag == 1 || req.PrivacyFlag == 3:
		return nil, errors.Join(errUnsupported, errors.New("privacy enhancements (privacyFlag 1 party protection, 3 private state validation) are not supported by basalt-privacy: send standard private transactions (privacyFlag 0)"))
	case req.PrivacyFlag == 2 || len(req.MandatoryRecipients) > 0:
		return nil, errors.Join(errUnsupported, errors.New("mandatory recipients (privacyFlag 2, mandatoryFor) are not supported by basalt-privacy"))
	case req.PrivacyFlag != 0:
		return nil, ptm.Errorf(ptm.InvalidPayload, "privacyFlag %d is not a privacy mode", req.PrivacyFlag)
	case len(req.AffectedContractTransactions) > 0 || req.ExecHash != "":
		return nil, errors.Join(errUnsupported, errors.New("affected contract transactions and execution hashes belong to privacy enhancements, which basalt-privacy does not support"))
	case len(req.PrivacyGroupID) > 0 && string(req.PrivacyGroupID) != "null":
		return nil, errors.Join(errUnsupported, errors.New("privacyGroupId (multiple private states) is not supported by basalt-privacy: address recipients with \"to\""))
	}
	return &req, nil
}

// sendFields are the fields GoQuorum's /send (and, without payload, its
// /sendsignedtx) carries.
var sendFields = []string{"from", "to", "affectedContractTransactions", "execHash", "privacyFlag", "mandatoryRecipients", "privacyGroupId"}

type sendResponse struct {
	Key            string   `json:"key"`
	ManagedParties []string `json:"managedParties"`
	SenderKey      string   `json:"senderKey"`
}

func (s *Server) send(w http.ResponseWriter, r *http.Request) {
	req, err := decode(r, append([]string{"payload"}, sendFields...)...)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if len(req.Payload) == 0 {
		s.fail(w, r, ptm.Errorf(ptm.InvalidPayload, "payload is missing or empty"))
		return
	}
	if req.From != nil && *req.From == "" {
		req.From = nil
	}
	out, err := s.Manager.SendTessera(r.Context(), req.Payload, req.From, req.To)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusCreated, sendResponse{Key: out.Key, ManagedParties: out.ManagedParties, SenderKey: out.SenderKey})
}

func (s *Server) storeRaw(w http.ResponseWriter, r *http.Request) {
	req, err := decode(r, "payload", "from")
	if err != nil {
		s.fail(w, r, err)
		return
	}
	key, err := s.Manager.StoreRawTessera(r.Context(), req.Payload, req.From)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, struct {
		Key string `json:"key"`
	}{key})
}

func (s *Server) sendSigned(w http.ResponseWriter, r *http.Request) {
	if ptm.RequestMediaType(r) == ptm.MediaBytes {
		// API 1.0: the raw key as the body, recipients in c11n-to.
		hash, err := io.ReadAll(r.Body)
		if err != nil {
			s.fail(w, r, ptm.Wrap(ptm.InvalidPayload, err))
			return
		}
		var to []string
		if h := r.Header.Get("c11n-to"); h != "" {
			to = strings.Split(h, ",")
		}
		out, err := s.Manager.SendSignedTessera(r.Context(), hash, to)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		w.Header().Set("Tesserasender", out.SenderKey)
		for _, k := range out.ManagedParties {
			w.Header().Add("Tesseramanagedparties", k)
		}
		writeText(w, http.StatusOK, out.Key)
		return
	}
	req, err := decode(r, append([]string{"hash"}, sendFields...)...)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	out, err := s.Manager.SendSignedTessera(r.Context(), req.Hash, req.To)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusCreated, sendResponse{Key: out.Key, ManagedParties: out.ManagedParties, SenderKey: out.SenderKey})
}

// pathKey decodes the {key} path element: Base64 of 64 bytes (GoQuorum
// escapes its "/" as %2F, which the mux unescapes). Anything else names no
// payload: 404, so that a GoQuorum importing a block reads it as "not a
// party" rather than a failure.
func pathKey(r *http.Request) ([]byte, error) {
	s := r.PathValue("key")
	k, err := keys.DecodeBase64(s)
	if err != nil || len(k) != payload.TesseraKeySize {
		return nil, ptm.Errorf(ptm.EnclavePayloadNotFound, "%q is not a Base64 %d-byte transaction key", s, payload.TesseraKeySize)
	}
	return k, nil
}

type receiveResponse struct {
	Payload                      []byte   `json:"payload"`
	AffectedContractTransactions []string `json:"affectedContractTransactions"`
	ExecHash                     string   `json:"execHash"`
	PrivacyFlag                  int      `json:"privacyFlag"`
	ManagedParties               []string `json:"managedParties"`
	SenderKey                    string   `json:"senderKey"`
}

func (s *Server) receive(w http.ResponseWriter, r *http.Request) {
	key, err := pathKey(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	q := r.URL.Query()
	var got *manager.TesseraReceived
	switch q.Get("isRaw") {
	case "true":
		got, err = s.Manager.ReceiveRawTessera(r.Context(), key)
	case "", "false":
		var to *string
		if v := q.Get("to"); v != "" {
			to = &v
		}
		got, err = s.Manager.ReceiveTessera(r.Context(), key, to)
	default:
		err = ptm.Errorf(ptm.InvalidPayload, "isRaw must be true or false, not %q", q.Get("isRaw"))
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if got.ManagedParties == nil {
		got.ManagedParties = []string{}
	}
	writeJSON(w, http.StatusOK, receiveResponse{
		Payload:                      got.Payload,
		AffectedContractTransactions: []string{},
		ManagedParties:               got.ManagedParties,
		SenderKey:                    got.SenderKey,
	})
}

func (s *Server) isSender(w http.ResponseWriter, r *http.Request) {
	key, err := pathKey(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	yes, err := s.Manager.TesseraIsSender(r.Context(), key)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeText(w, http.StatusOK, map[bool]string{true: "true", false: "false"}[yes])
}

func (s *Server) participants(w http.ResponseWriter, r *http.Request) {
	key, err := pathKey(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	ps, err := s.Manager.TesseraParticipants(r.Context(), key)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeText(w, http.StatusOK, strings.Join(ps, ","))
}

// mandatory answers a known payload's mandatory recipients: none, since no
// payload here has any.
func (s *Server) mandatory(w http.ResponseWriter, r *http.Request) {
	key, err := pathKey(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if _, err := s.Manager.TesseraParticipants(r.Context(), key); err != nil {
		s.fail(w, r, err)
		return
	}
	writeText(w, http.StatusOK, "")
}

type partyKey struct {
	Key string `json:"key"`
}

// partyKeys answers the keys of the network this instance knows (its own
// and the proven ones of its node table), sorted, as Tessera's third-party
// /partyinfo/keys.
func (s *Server) partyKeys(w http.ResponseWriter, _ *http.Request) {
	var ks []string
	for k := range s.Table.Entries() {
		ks = append(ks, k.String())
	}
	slices.Sort(ks)
	out := struct {
		Keys []partyKey `json:"keys"`
	}{Keys: []partyKey{}}
	for _, k := range ks {
		out.Keys = append(out.Keys, partyKey{Key: k})
	}
	writeJSON(w, http.StatusOK, out)
}
