package httpmw

import (
	"errors"
	"net/http"
)

// tooLargeBody is the default body of a 413 answer.
const tooLargeBody = `{"message":"Request Entity Too Large"}`

// BodyLimit caps request bodies at n bytes (n <= 0: no limit). A request
// whose Content-Length already exceeds n is answered at once by tooLarge (nil:
// 413 {"message":"Request Entity Too Large"}); otherwise the body is wrapped
// with http.MaxBytesReader, so a handler reading past n gets an error for
// which IsTooLarge is true and should answer 413 itself.
func BodyLimit(n int64, tooLarge http.Handler) Middleware {
	if n <= 0 {
		return func(next http.Handler) http.Handler { return next }
	}
	if tooLarge == nil {
		tooLarge = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			writeMessage(w, http.StatusRequestEntityTooLarge, tooLargeBody)
		})
	}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.ContentLength > n {
				// Do not keep reading a body we refuse.
				w.Header().Set("Connection", "close")
				tooLarge.ServeHTTP(w, r)
				return
			}
			r.Body = http.MaxBytesReader(w, r.Body, n)
			next.ServeHTTP(w, r)
		})
	}
}

// IsTooLarge reports whether err comes from reading past a BodyLimit.
func IsTooLarge(err error) bool {
	var mbe *http.MaxBytesError
	return errors.As(err, &mbe)
}
