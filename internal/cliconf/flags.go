package cliconf

import "github.com/spf13/pflag"

// AddFlags registers opts on fs: each option's flag, with its aliases as
// hidden flags sharing its value. A Bool flag alone means true; a List flag
// given several times accumulates. The flags keep the text given, so that
// Values.Get can check every source the same way.
func AddFlags(fs *pflag.FlagSet, opts ...Option) {
	for _, o := range opts {
		v := &flagValue{text: o.Default, kind: o.Kind, typ: o.Type}
		for i, name := range o.names() {
			usage := o.Usage
			if o.Kind == Bool && o.Default == "false" {
				usage += " (default false)" // pflag omits zero defaults
			}
			shorthand := o.Shorthand
			if i > 0 {
				usage, shorthand = "Alias of --"+o.Name, ""
			}
			f := fs.VarPF(v, name, shorthand, usage)
			f.DefValue = o.Default
			f.Hidden = i > 0 || o.Hidden
			if o.Kind == Bool {
				f.NoOptDefVal = "true"
			}
		}
	}
}

// flagValue is the pflag.Value of every option: the raw text.
type flagValue struct {
	text string
	kind Kind
	typ  string
	set  bool
}

func (v *flagValue) String() string { return v.text }

func (v *flagValue) Set(s string) error {
	if v.kind == List && v.set {
		v.text += "," + s
	} else {
		v.text = s
	}
	v.set = true
	return nil
}

func (v *flagValue) Type() string {
	if v.kind == Bool {
		return "bool" // pflag prints no value name for bools
	}
	return v.typ
}
