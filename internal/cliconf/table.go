package cliconf

import (
	"errors"
	"fmt"
)

// Binding is the one shape in which every program describes an option: the
// Option (flag, environment variables, file key, help, and its Default, the
// only place the default is written) and Set, which checks a value written
// as on the command line and puts it in the program's configuration C.
//
// Because the default goes through Set like any other value, a program's
// Defaults() is Table.Defaults: the configuration of a run given no option,
// read from the same Option.Default that help prints and the loader falls
// back to. A constructor that fills in a zero field (rpc.NewWSHandler's 80
// connections) keeps its constant, and the Option.Default is written from
// that constant, so that the number exists once.
type Binding[C any] struct {
	Option
	// Set checks v (v.Text, or v.List() for a List) and sets c from it.
	// It returns ErrRequired for a required option left empty. nil for an
	// option that sets nothing.
	Set func(c *C, v Value) error
}

// ErrRequired is what a Set returns for a required option left empty;
// Table.Apply reports it as Value.Required.
var ErrRequired = errors.New("required")

// Table is every option of a program whose configuration is C.
type Table[C any] []Binding[C]

// Options returns the options of the table, for a Spec and AddFlags.
func (t Table[C]) Options() []Option {
	out := make([]Option, len(t))
	for i, b := range t {
		out[i] = b.Option
	}
	return out
}

// Section returns the options of section ("" for the program-wide ones).
func (t Table[C]) Section(section string) []Option {
	var out []Option
	for _, b := range t {
		if b.Section == section {
			out = append(out, b.Option)
		}
	}
	return out
}

// Defaults sets c to every option's Default, in table order, and returns
// the first default Set rejects (a required option, which has none, is left
// as Set leaves it): that is a mistake in the program's table,
// which its tests catch (see Table.Defaults' use in each program's
// Defaults()).
func (t Table[C]) Defaults(c *C) error {
	for _, b := range t {
		if b.Set == nil {
			continue
		}
		if err := b.Set(c, Value{Text: b.Default, flag: "--" + b.Name}); err != nil && !errors.Is(err, ErrRequired) {
			return fmt.Errorf("cliconf: default %q of %s: %w", b.Default, FileKey(b.Section, b.Name), err)
		}
	}
	return nil
}

// Apply sets c from the value in v of every option of the table whose
// section is "" or in sections, in table order. visit, when not nil, sees
// each option's value and the error of its Set (nil when it took the
// value); Apply stops at the first error visit returns. With visit nil,
// Apply stops at the first rejected value, reported as Value.Invalid (or
// Value.Required for ErrRequired).
func (t Table[C]) Apply(v *Values, c *C, visit func(b *Binding[C], val Value, err error) error, sections ...string) error {
	in := map[string]bool{"": true}
	for _, s := range sections {
		in[s] = true
	}
	for i := range t {
		b := &t[i]
		if !in[b.Section] {
			continue
		}
		val := v.Get(FileKey(b.Section, b.Name))
		var err error
		if b.Set != nil {
			err = b.Set(c, val)
		}
		if visit != nil {
			err = visit(b, val, err)
		} else {
			err = val.Error(err)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// Error is err, which Set returned for v, as the user reads it:
// Value.Required for ErrRequired, otherwise Value.Invalid; nil for nil.
func (v Value) Error(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, ErrRequired):
		return v.Required()
	}
	return v.Invalid(err)
}
