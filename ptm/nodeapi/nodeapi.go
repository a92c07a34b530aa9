// Package nodeapi is the node-to-node HTTP API of basalt-privacy (Orion's
// "node" port, 8080 by default) and the client other instances use to call it:
//
//	GET  /upcheck             "I'm up!"
//	POST /partyinfo           CBOR node table in (the caller's), CBOR out (our own keys only);
//	                          the caller's entries are queued for proof, not listed
//	POST /partyinfo/validate  CBOR challenges in, CBOR answers out (Basalt: proof of key ownership)
//	POST /push                CBOR EncryptedPayload, stripped to our keys; answers its digest
//	POST /pushPrivacyGroup    CBOR PrivacyGroup with a member's authentication
//	                          (manager.GroupAuthHeader); answers its id
//
// Failures answer 500 {"error":"<Orion code>"} (403 for a pushed group not
// authenticated by a member, 413 PayloadTooLarge for a body over the limit);
// a request no route matches answers 404, and a connection from an address
// not allowed answers 403.
package nodeapi

import (
	"io"
	"log/slog"
	"net/http"
	"net/netip"

	"github.com/basaltchain/basalt/internal/httpmw"
	"github.com/basaltchain/basalt/ptm"
	"github.com/basaltchain/basalt/ptm/discovery"
	"github.com/basaltchain/basalt/ptm/manager"
)

// Server holds what the node API handlers need.
type Server struct {
	Manager *manager.Manager
	Table   *discovery.Table
	Log     *slog.Logger
	// MaxBody is the largest request body accepted, in bytes (0: no limit).
	MaxBody int64
	// Allow, when not empty, is the list of client IP addresses allowed to
	// connect (Orion's ipwhitelist, and with discovery off the fixed peers'
	// addresses); others are answered 403.
	Allow []netip.Addr
}

// Handler returns the node API.
func (s *Server) Handler() http.Handler {
	router := ptm.NewRouter(
		ptm.UpcheckRoute,
		ptm.Route{Method: http.MethodPost, Path: "/partyinfo", Consumes: []string{ptm.MediaCBOR}, Handler: serve(s, s.partyInfo, ptm.WriteCBOR)},
		ptm.Route{Method: http.MethodPost, Path: "/partyinfo/validate", Consumes: []string{ptm.MediaCBOR}, Handler: serve(s, s.validate, ptm.WriteCBOR)},
		ptm.Route{Method: http.MethodPost, Path: "/push", Consumes: []string{ptm.MediaCBOR}, Handler: serve(s, s.push, ptm.WriteText)},
		ptm.Route{Method: http.MethodPost, Path: "/pushPrivacyGroup", Consumes: []string{ptm.MediaCBOR}, Handler: serve(s, s.pushGroup, ptm.WriteText)},
	)
	return ptm.Handler(router, s.MaxBody, s.allowlist)
}

func (s *Server) log() *slog.Logger {
	if s.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return s.Log
}

// allowlist enforces Allow on the connection's remote address.
func (s *Server) allowlist(next http.Handler) http.Handler {
	if len(s.Allow) == 0 {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if ap, err := netip.ParseAddrPort(r.RemoteAddr); err == nil {
			ip := ap.Addr().Unmap()
			for _, a := range s.Allow {
				if a.Unmap() == ip {
					next.ServeHTTP(w, r)
					return
				}
			}
		}
		w.Header().Set("Content-Type", ptm.MediaText)
		w.WriteHeader(http.StatusForbidden)
		io.WriteString(w, "address not allowed on the node API (ipwhitelist, or othernodes with peerdiscovery = false)\n")
	})
}

// serve makes the handler of a node API call, which takes its request
// whole as the body: it reads the body (answering 413 or 400 itself when it
// cannot), and answers the call's result with write or its error with fail.
func serve[T any](s *Server, call func(r *http.Request, body []byte) (T, error), write func(http.ResponseWriter, T)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			if httpmw.IsTooLarge(err) {
				ptm.WriteError(w, http.StatusRequestEntityTooLarge, ptm.PayloadTooLarge)
			} else {
				ptm.WriteError(w, http.StatusBadRequest, ptm.ObjectJSONDeserialization)
			}
			return
		}
		reply, err := call(r, body)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		write(w, reply)
	}
}

func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
	code := ptm.CodeOf(err)
	status := http.StatusInternalServerError
	if code == ptm.PrivacyGroupNotFromMember {
		status = http.StatusForbidden
	}
	s.log().Warn("node API request failed", "path", r.URL.Path, "remote", r.RemoteAddr, "code", code, "err", err)
	ptm.WriteError(w, status, code)
}

// partyInfo answers this instance's own keys — what the caller needs to
// address and challenge it — and queues the caller's claims for proof. The
// table itself goes only to proven instances, in the polls this instance
// makes (discovery.Table.PartyInfoFor): a caller cannot be told apart from
// anyone claiming its URL.
func (s *Server) partyInfo(r *http.Request, body []byte) ([]byte, error) {
	_, entries, err := discovery.DecodePartyInfo(body)
	if err != nil {
		return nil, ptm.Wrap(ptm.ObjectJSONDeserialization, err)
	}
	reply, err := s.Table.OwnPartyInfo().Encode()
	if err != nil {
		return nil, ptm.Wrap(ptm.ObjectJSONSerialization, err)
	}
	st := s.Table.Offer(entries)
	if st.Dropped > 0 {
		s.log().Warn("party info over the limits: claims dropped", "remote", r.RemoteAddr, "entries", len(entries), "queued", st.Queued, "dropped", st.Dropped)
	} else if st.Queued > 0 {
		s.log().Debug("party info claims queued for proof", "remote", r.RemoteAddr, "queued", st.Queued)
	}
	return reply, nil
}

// validate answers the challenges of another instance proving that this
// one holds the keys it claims (discovery.Answer).
func (s *Server) validate(_ *http.Request, body []byte) ([]byte, error) {
	reply, err := discovery.Answer(s.Manager.Enclave, s.Table.Self(), body)
	if err != nil {
		return nil, ptm.Wrap(ptm.ObjectJSONDeserialization, err)
	}
	return reply, nil
}

// push stores a payload pushed to this instance's keys; it answers its
// digest.
func (s *Server) push(r *http.Request, body []byte) (string, error) {
	return s.Manager.StorePushed(r.Context(), body)
}

// pushGroup stores a privacy group a member pushed; it answers its id.
func (s *Server) pushGroup(r *http.Request, body []byte) (string, error) {
	return s.Manager.StorePushedGroup(r.Context(), body, r.Header.Get(manager.GroupAuthHeader))
}
