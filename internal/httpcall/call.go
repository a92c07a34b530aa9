package httpcall

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
)

// Request is one call of a service.
type Request struct {
	Method string
	URL    string
	// Body is sent when not nil.
	Body []byte
	// ContentType and Accept set those headers when not empty.
	ContentType string
	Accept      string
	// Header holds further headers, set after the two above.
	Header http.Header
}

// ReadAll reads r to its end, at most max bytes: a longer stream is a
// *TooLongError (the bound keeps a faulty or hostile service from growing
// the caller's memory without limit).
func ReadAll(r io.Reader, max int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, &TooLongError{Max: max}
	}
	return b, nil
}

// Do sends req with hc and reads the answer, up to max bytes of body. Any
// status is an answer (see Answer.Err). Errors: building the request, the
// client's own (a *url.Error: no answer arrived, with the transport's or
// ctx's cause inside), a *ReadError, or a *TooLongError.
func Do(ctx context.Context, hc *http.Client, req *Request, max int64) (*Answer, error) {
	var body io.Reader
	if req.Body != nil {
		body = bytes.NewReader(req.Body)
	}
	hr, err := http.NewRequestWithContext(ctx, req.Method, req.URL, body)
	if err != nil {
		return nil, err
	}
	if req.ContentType != "" {
		hr.Header.Set("Content-Type", req.ContentType)
	}
	if req.Accept != "" {
		hr.Header.Set("Accept", req.Accept)
	}
	for k, vs := range req.Header {
		hr.Header[k] = vs
	}
	resp, err := hc.Do(hr)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := ReadAll(resp.Body, max)
	if err != nil {
		var tl *TooLongError
		if errors.As(err, &tl) {
			return nil, err
		}
		return nil, &ReadError{Err: err}
	}
	return &Answer{Status: resp.StatusCode, Header: resp.Header, Body: b}, nil
}
