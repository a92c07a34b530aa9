package cliconf

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

type tableConf struct {
	Port int
	Host string
	Key  string
}

func testTable() Table[tableConf] {
	return Table[tableConf]{
		{Option: Option{Name: "port", Type: "port", Default: "8545"},
			Set: func(c *tableConf, val Value) (err error) {
				c.Port, err = strconv.Atoi(val.Text)
				if err != nil {
					return errors.New("expected a port number")
				}
				return nil
			}},
		{Option: Option{Name: "host", Default: "127.0.0.1"},
			Set: func(c *tableConf, val Value) error { c.Host = val.Text; return nil }},
		{Option: Option{Section: "raw", Name: "key"},
			Set: func(c *tableConf, val Value) error {
				if c.Key = val.Text; c.Key == "" {
					return ErrRequired
				}
				return nil
			}},
	}
}

// The defaults a program runs with are the Option.Default texts help
// prints, through the same Set as any value.
func TestTableDefaults(t *testing.T) {
	var c tableConf
	if err := testTable().Defaults(&c); err != nil {
		t.Fatal(err)
	}
	if c != (tableConf{Port: 8545, Host: "127.0.0.1"}) {
		t.Fatalf("defaults %+v", c)
	}
	bad := testTable()
	bad[0].Default = "eighty"
	if err := bad.Defaults(&c); err == nil || !strings.Contains(err.Error(), `default "eighty" of port`) {
		t.Fatalf("a default Set rejects: %v", err)
	}
}

func TestTableApply(t *testing.T) {
	tab := testTable()
	s := &Spec{Options: tab.Options(), EnvPrefixes: []string{"T_"}}
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	AddFlags(fs, tab.Section("")...)
	if err := fs.Parse([]string{"--port=9000"}); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"T_HOST": "example", "T_RAW_KEY": "0x01"}
	v, err := s.Load(Sources{Flags: fs, LookupEnv: func(k string) (string, bool) { x, ok := env[k]; return x, ok }})
	if err != nil {
		t.Fatal(err)
	}
	var c tableConf
	// The section's option is applied only when asked for.
	if err := tab.Apply(v, &c, nil); err != nil || c != (tableConf{Port: 9000, Host: "example"}) {
		t.Fatalf("apply: %+v %v", c, err)
	}
	if err := tab.Apply(v, &c, nil, "raw"); err != nil || c.Key != "0x01" {
		t.Fatalf("apply raw: %+v %v", c, err)
	}

	env = map[string]string{"T_PORT": "x"}
	if v, err = s.Load(Sources{LookupEnv: func(k string) (string, bool) { x, ok := env[k]; return x, ok }}); err != nil {
		t.Fatal(err)
	}
	err = tab.Apply(v, &c, nil, "raw")
	if want := `invalid value "x" for --port (from environment variable T_PORT): expected a port number`; err == nil || err.Error() != want {
		t.Fatalf("got %v, want %s", err, want)
	}
	// visit sees every value: a program may report all errors at once.
	var errs []string
	_ = tab.Apply(v, &c, func(b *Binding[tableConf], val Value, err error) error {
		if err = val.Error(err); err != nil {
			errs = append(errs, err.Error())
		}
		return nil
	}, "raw")
	if len(errs) != 2 || errs[1] != "--key is required" {
		t.Fatalf("errors %q", errs)
	}
}
