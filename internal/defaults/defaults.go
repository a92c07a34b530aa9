// Package defaults holds the one rule by which a component's constructor
// fills the settings its caller left unset: a size, count or duration that
// means nothing at zero or below takes the component's default. (A setting
// whose negative value means something, "no limit" or "never", is unset only
// at zero: cmp.Or is that rule.)
package defaults

// Number is a setting counted or measured in whole units: sizes, counts,
// and time.Duration.
type Number interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64
}

// Positive returns v when it is above zero and def otherwise, so that an
// unset setting and a meaningless one alike take the default.
func Positive[T Number](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}
