package httpcall

import (
	"fmt"
	"net/http"
	"strings"
)

// Answer is a service's answer, read in full.
type Answer struct {
	Status int
	Header http.Header
	Body   []byte
}

// OK reports a 2xx status.
func (a *Answer) OK() bool { return a.Status/100 == 2 }

// Text is the body as an error text: space trimmed, cut at TextLimit bytes.
func (a *Answer) Text() string { return Cut(strings.TrimSpace(string(a.Body)), TextLimit) }

// Err returns nil for a 2xx answer, else a *StatusError with the status
// and Text.
func (a *Answer) Err() error {
	if a.OK() {
		return nil
	}
	return &StatusError{Status: a.Status, Text: a.Text()}
}

// StatusError is an answer with a status other than 2xx.
type StatusError struct {
	Status int
	// Text is the answer's body, trimmed and cut (Answer.Text).
	Text string
}

func (e *StatusError) Error() string { return fmt.Sprintf("HTTP %d: %s", e.Status, e.Text) }

// TextLimit is where an answer's text in an error is cut: enough for a
// service's error message, too little to flood a log with an HTML page.
const TextLimit = 200

// Cut returns s cut at n bytes, with "…" when something was cut off. A
// cut never splits a UTF-8 sequence.
func Cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}

// ReadError is a failure to read an answer whose status line arrived: the
// connection broke or timed out mid-body. Its text is the cause's.
type ReadError struct{ Err error }

func (e *ReadError) Error() string { return e.Err.Error() }
func (e *ReadError) Unwrap() error { return e.Err }

// TooLongError is an answer longer than the caller's bound: refused
// rather than cut, since a cut answer is a wrong one.
type TooLongError struct{ Max int64 }

func (e *TooLongError) Error() string { return fmt.Sprintf("response larger than %d bytes", e.Max) }
