package auth

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
)

// maxLoginBody caps a /login body: a user name and a password fit easily,
// and the WebSocket port, which also serves /login, has no body limit of
// its own.
const maxLoginBody = 64 << 10

// Login is the POST /login handler (Besu's), for rpc.HTTPConfig.Routes and
// rpc.WSConfig.Routes:
//
//	{"username":"alice","password":"secret"}  ->  200 {"token":"<JWT>"}
//
// Wrong password, unknown user and user without a password all answer 401
// with an empty body, after the same bcrypt work; a body that is not a JSON
// object with string username and password answers 400 with an empty body;
// when the login queue is full, 429 with Retry-After. In public-key mode
// it is DisabledLogin.
func (s *Service) Login() http.Handler {
	if s.creds == nil {
		return DisabledLogin()
	}
	return postOnly(http.HandlerFunc(s.serveLogin))
}

func (s *Service) serveLogin(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxLoginBody))
	if err != nil {
		status := http.StatusBadRequest
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			status = http.StatusRequestEntityTooLarge
		}
		w.WriteHeader(status)
		return
	}
	var req struct {
		Username *string `json:"username"`
		Password *string `json:"password"`
	}
	if json.Unmarshal(body, &req) != nil || req.Username == nil || req.Password == nil {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	if !s.logins.acquire(r.Context()) {
		w.Header().Set("Retry-After", strconv.Itoa(1))
		w.WriteHeader(http.StatusTooManyRequests)
		return
	}
	u := s.checkLogin(*req.Username, *req.Password)
	s.logins.release()
	if u == nil {
		// The user name is not logged: people type passwords into it.
		s.log.Debug("JSON-RPC login refused", "audience", s.audience, "remote", r.RemoteAddr)
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	token, err := s.Issue(u)
	if err != nil {
		s.log.Error("JSON-RPC token cannot be signed", "err", err)
		w.WriteHeader(http.StatusInternalServerError)
		return
	}
	s.log.Debug("JSON-RPC login", "audience", s.audience, "user", u.Name, "remote", r.RemoteAddr)
	resp, _ := json.Marshal(struct {
		Token string `json:"token"`
	}{token})
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Length", strconv.Itoa(len(resp)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(resp)
}

// checkLogin returns the user if password is theirs. Every call runs
// exactly one bcrypt comparison: against the user's hash, or against
// dummyHash for an unknown user or a user without a password, so the time
// taken does not reveal which users exist.
func (s *Service) checkLogin(name, password string) *User {
	u, err := s.creds.lookup(name)
	if err != nil {
		s.log.Error("JSON-RPC credentials file unreadable; using the users last read", "err", err)
	}
	hash := s.dummyHash
	if u != nil && len(u.hash) > 0 {
		hash = u.hash
	}
	if !s.passwordMatches(hash, password) || u == nil || len(u.hash) == 0 {
		return nil
	}
	return u
}

// DisabledLogin answers POST /login on an endpoint that has no credentials
// file (authentication off, or public-key mode): 400 with an empty body,
// as Besu ("Authentication not enabled").
func DisabledLogin() http.Handler {
	return postOnly(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusBadRequest)
	}))
}

// postOnly answers other methods than POST with 405.
func postOnly(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", http.MethodPost)
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		h.ServeHTTP(w, r)
	})
}
