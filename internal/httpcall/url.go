package httpcall

import (
	"errors"
	"net/url"
	"strings"
)

// ParseBase checks a service's base URL: absolute, http or https, with a
// host. A path is kept as a prefix of every call's path (see Join); the
// caller checks anything more it needs (credentials, a query).
func ParseBase(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return nil, err
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, errors.New("want an http:// or https:// URL")
	case u.Host == "":
		return nil, errors.New("the URL has no host")
	}
	return u, nil
}

// Join returns base with path appended to its path: path is in escaped
// form and starts with "/" (a segment built from data is escaped with
// url.PathEscape by the caller). The base's trailing slashes are dropped,
// so "http://h/prefix/" and "/send" give "http://h/prefix/send", and its
// own escaping is kept, so an escaped "/" in the prefix stays one. The
// base's query and fragment are not carried over.
func Join(base *url.URL, path string) *url.URL {
	u := *base
	u.RawQuery, u.Fragment, u.RawFragment, u.ForceQuery = "", "", "", false
	raw := strings.TrimRight(base.EscapedPath(), "/") + path
	p, err := url.PathUnescape(raw)
	if err != nil {
		// Not valid escaping: take the text as it is, which String escapes.
		u.Path, u.RawPath = raw, ""
		return &u
	}
	u.Path, u.RawPath = p, raw
	return &u
}
