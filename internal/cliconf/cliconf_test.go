package cliconf

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// testSpec has one option of each shape, Besu-style (lenient file types).
func testSpec() *Spec {
	return &Spec{
		Options: []Option{
			{Name: "port", Type: "port", Default: "8545", Usage: "Port"},
			{Name: "host-allowlist", Aliases: []string{"host-whitelist"}, Kind: List, Type: "list", Default: "localhost,127.0.0.1", Usage: "Hosts"},
			{Name: "enabled", Kind: Bool, Default: "false", Usage: "Enable"},
			{Name: "discovery", Kind: Bool, Default: "true", Usage: "Discover"},
			{Name: "logging", Shorthand: "l", Default: "INFO", Usage: "Level"},
			{Name: "Xreconnect", Default: "60", Hidden: true, Usage: "Seconds"},
			{Name: "config-file", Type: "path", Usage: "File"},
			{Section: "store", Name: "key-file", Shorthand: "k", Usage: "Key"},
		},
		EnvPrefixes: []string{"TEST_"},
		FileOption:  "config-file",
	}
}

func writeFile(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "c.toml")
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func envFunc(env map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := env[k]; return v, ok }
}

// load parses args on a flag set holding every option of s and loads the
// values with env and, when file is not empty, a config file with that
// content (named by --config-file, or Sources.File without a FileOption).
func load(t *testing.T, s *Spec, env map[string]string, file string, args ...string) (*Values, error) {
	t.Helper()
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	AddFlags(fs, s.Options...)
	if err := fs.Parse(args); err != nil {
		t.Fatalf("parse %v: %v", args, err)
	}
	src := Sources{Flags: fs, LookupEnv: envFunc(env)}
	if file != "" {
		path := writeFile(t, file)
		if s.FileOption != "" {
			if err := fs.Set(s.FileOption, path); err != nil {
				t.Fatal(err)
			}
		} else {
			src.File = path
		}
	}
	return s.Load(src)
}

func mustLoad(t *testing.T, s *Spec, env map[string]string, file string, args ...string) *Values {
	t.Helper()
	v, err := load(t, s, env, file, args...)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	return v
}

func TestPrecedence(t *testing.T) {
	cases := []struct {
		name     string
		spec     func(*Spec)
		args     []string
		env      map[string]string
		file     string
		key      string
		want     string
		wantKind SourceKind
		wantName string
	}{
		{name: "default", key: "port", want: "8545", wantKind: FromDefault},
		{name: "file over default", file: "port = 1111", key: "port", want: "1111", wantKind: FromFile, wantName: "port"},
		{name: "env over file", file: "port = 1111", env: map[string]string{"TEST_PORT": "2222"},
			key: "port", want: "2222", wantKind: FromEnv, wantName: "TEST_PORT"},
		{name: "flag over env", file: "port = 1111", env: map[string]string{"TEST_PORT": "2222"}, args: []string{"--port=3333"},
			key: "port", want: "3333", wantKind: FromFlag, wantName: "--port"},
		{name: "flag equal to default still wins", file: "port = 1111", args: []string{"--port", "8545"},
			key: "port", want: "8545", wantKind: FromFlag, wantName: "--port"},
		{name: "empty env is unset", file: "port = 1111", env: map[string]string{"TEST_PORT": ""},
			key: "port", want: "1111", wantKind: FromFile},
		{name: "empty env counts when the spec says so", spec: func(s *Spec) { s.EmptyEnvSets = true },
			file: "port = 1111", env: map[string]string{"TEST_PORT": ""}, key: "port", want: "", wantKind: FromEnv},
		{name: "first prefix wins", spec: func(s *Spec) { s.EnvPrefixes = []string{"A_", "B_"} },
			env: map[string]string{"A_PORT": "1", "B_PORT": "2"}, key: "port", want: "1", wantKind: FromEnv, wantName: "A_PORT"},
		{name: "second prefix", spec: func(s *Spec) { s.EnvPrefixes = []string{"A_", "B_"} },
			env: map[string]string{"B_PORT": "2"}, key: "port", want: "2", wantKind: FromEnv, wantName: "B_PORT"},
		{name: "alias flag", args: []string{"--host-whitelist=a.example"}, key: "host-allowlist", want: "a.example", wantKind: FromFlag, wantName: "--host-whitelist"},
		{name: "alias env", env: map[string]string{"TEST_HOST_WHITELIST": "b.example"}, key: "host-allowlist", want: "b.example", wantKind: FromEnv, wantName: "TEST_HOST_WHITELIST"},
		{name: "alias file key", file: `host-whitelist = "c.example"`, key: "host-allowlist", want: "c.example", wantKind: FromFile, wantName: "host-whitelist"},
		{name: "name over alias", file: "host-whitelist = \"c\"\nhost-allowlist = \"d\"", key: "host-allowlist", want: "d", wantKind: FromFile, wantName: "host-allowlist"},
		{name: "get by alias", args: []string{"--host-allowlist=e"}, key: "host-whitelist", want: "e", wantKind: FromFlag},
		{name: "shorthand", args: []string{"-l", "debug"}, key: "logging", want: "debug", wantKind: FromFlag, wantName: "--logging"},
		{name: "hidden option from env", env: map[string]string{"TEST_XRECONNECT": "1"}, key: "Xreconnect", want: "1", wantKind: FromEnv, wantName: "TEST_XRECONNECT"},
		{name: "section flag", args: []string{"-k", "/flag"}, file: "store.key-file = \"/file\"", key: "store.key-file", want: "/flag", wantKind: FromFlag},
		{name: "section env", env: map[string]string{"TEST_STORE_KEY_FILE": "/env"}, file: "[store]\nkey-file = \"/file\"",
			key: "store.key-file", want: "/env", wantKind: FromEnv, wantName: "TEST_STORE_KEY_FILE"},
		{name: "section table", file: "[store]\nkey-file = \"/file\"", key: "store.key-file", want: "/file", wantKind: FromFile, wantName: "store.key-file"},
		{name: "section dotted key", file: "store.key-file = \"/file\"", key: "store.key-file", want: "/file", wantKind: FromFile, wantName: "store.key-file"},
		{name: "file number", file: "port = 8.5", key: "port", want: "8.5", wantKind: FromFile},
		{name: "file bool as text", file: "logging = true", key: "logging", want: "true", wantKind: FromFile},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := testSpec()
			if tc.spec != nil {
				tc.spec(s)
			}
			got := mustLoad(t, s, tc.env, tc.file, tc.args...).Get(tc.key)
			if got.Text != tc.want || got.Source.Kind != tc.wantKind || (tc.wantName != "" && got.Source.Name != tc.wantName) {
				t.Errorf("got %q from %+v, want %q from %v %q", got.Text, got.Source, tc.want, tc.wantKind, tc.wantName)
			}
		})
	}
}

func TestFileNamedBy(t *testing.T) {
	path := writeFile(t, "port = 1")
	v := mustLoad(t, testSpec(), map[string]string{"TEST_CONFIG_FILE": path}, "")
	if got := v.Get("port"); got.Text != "1" || got.Source.File != path || v.File() != path {
		t.Errorf("file from the environment: %+v, %q", got, v.File())
	}
	if got := v.Get("config-file"); got.Text != path || got.Source.Kind != FromEnv {
		t.Errorf("config-file: %+v", got)
	}
	// A program without a FileOption names the file itself.
	s := testSpec()
	s.FileOption = ""
	v = mustLoad(t, s, nil, "port = 2\nconfig-file = \"x\"")
	if v.Get("port").Text != "2" || v.Get("config-file").Text != "x" {
		t.Errorf("Sources.File: %+v", v.Get("port"))
	}
	if v := mustLoad(t, testSpec(), nil, ""); v.File() != "" || v.Get("port").Text != "8545" {
		t.Error("no file")
	}
}

func TestFileErrors(t *testing.T) {
	cases := []struct {
		name, file string
		strict     bool
		want       FileError // without Path
		msg        string    // Error(), with FILE for the path
	}{
		{name: "unknown key", file: "port = 1\nxport = 2",
			want: FileError{Unknown: []string{"xport"}},
			msg:  `unknown option "xport" in config file FILE`},
		{name: "unknown keys sorted", file: "foo = 1\nbar = 2",
			want: FileError{Unknown: []string{"bar", "foo"}},
			msg:  `unknown options "bar", "foo" in config file FILE`},
		{name: "table not a section", file: "[rpc]\nport = 1",
			want: FileError{Unknown: []string{"rpc"}}, msg: `unknown option "rpc" in config file FILE`},
		{name: "unknown key of a section", file: "[store]\nkeyfile = \"x\"",
			want: FileError{Unknown: []string{"store.keyfile"}}, msg: `unknown option "store.keyfile" in config file FILE`},
		{name: "section option at top level", file: `key-file = "x"`,
			want: FileError{Unknown: []string{"key-file"}}, msg: `unknown option "key-file" in config file FILE`},
		{name: "file option in the file", file: `config-file = "x"`,
			want: FileError{NotAllowed: []string{"config-file"}}, msg: `config file FILE: "config-file" cannot be set in a config file`},
		{name: "array for a single value", file: "port = [1, 2]",
			want: FileError{Invalid: []KeyError{{"port", "want a single value, got an array"}}},
			msg:  `invalid value for "port" in config file FILE: want a single value, got an array`},
		{name: "nested array", file: "host-allowlist = [[1]]",
			want: FileError{Invalid: []KeyError{{"host-allowlist", "array element 0: want a string, number or boolean, got an array"}}},
			msg:  `invalid value for "host-allowlist" in config file FILE: array element 0: want a string, number or boolean, got an array`},
		{name: "table for a value", file: "[port]\nx = 1",
			want: FileError{Invalid: []KeyError{{"port", "want a string, number, boolean or list, got a table"}}},
			msg:  `invalid value for "port" in config file FILE: want a string, number, boolean or list, got a table`},
		{name: "date", file: "logging = 1979-05-27",
			want: FileError{Invalid: []KeyError{{"logging", "want a string, number, boolean or list, got a date or time"}}},
			msg:  `invalid value for "logging" in config file FILE: want a string, number, boolean or list, got a date or time`},
		{name: "every problem", file: "zz = 1\nport = [1]\nconfig-file = \"x\"\naa = 2",
			want: FileError{Unknown: []string{"aa", "zz"}, NotAllowed: []string{"config-file"}, Invalid: []KeyError{{"port", "want a single value, got an array"}}},
			msg: `invalid value for "port" in config file FILE: want a single value, got an array; ` +
				`config file FILE: "config-file" cannot be set in a config file; unknown options "aa", "zz" in config file FILE`},
		{name: "strict string", strict: true, file: "logging = 1",
			want: FileError{Invalid: []KeyError{{"logging", "want a string, got 1"}}}},
		{name: "strict int", strict: true, file: `Xreconnect = "x"`,
			want: FileError{Invalid: []KeyError{{"Xreconnect", `want an integer, got "x"`}}}},
		{name: "strict bool", strict: true, file: `enabled = "true"`,
			want: FileError{Invalid: []KeyError{{"enabled", `want true or false, got "true"`}}}},
		{name: "strict list", strict: true, file: `host-allowlist = "a,b"`,
			want: FileError{Invalid: []KeyError{{"host-allowlist", `want a list of strings, got "a,b"`}}}},
		{name: "strict list element", strict: true, file: `host-allowlist = ["a", 1]`,
			want: FileError{Invalid: []KeyError{{"host-allowlist", "want a list of strings, got element 1: 1"}}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := testSpec()
			if tc.strict {
				s.StrictFileTypes = true
				s.Options[5].Kind = Int // Xreconnect
			}
			_, err := load(t, s, nil, tc.file)
			var fe *FileError
			if !errors.As(err, &fe) {
				t.Fatalf("error %v, want a *FileError", err)
			}
			want := tc.want
			want.Path, want.Option = fe.Path, "config-file"
			if !reflect.DeepEqual(*fe, want) {
				t.Errorf("got  %+v\nwant %+v", *fe, want)
			}
			if msg := strings.ReplaceAll(tc.msg, "FILE", fe.Path); tc.msg != "" && err.Error() != msg {
				t.Errorf("message\n got %s\nwant %s", err, msg)
			}
		})
	}
}

func TestFileReadErrors(t *testing.T) {
	_, err := load(t, testSpec(), nil, "port = = 1")
	var fe *FileError
	if !errors.As(err, &fe) || fe.Err == nil || fe.Unknown != nil {
		t.Fatalf("syntax error: %#v", err)
	}
	if want := "--config-file: " + fe.Path + ": toml: line 1"; !strings.HasPrefix(err.Error(), want) {
		t.Errorf("syntax error %q, want it to start with %q", err, want)
	}
	missing := filepath.Join(t.TempDir(), "none.toml")
	_, err = load(t, testSpec(), nil, "", "--config-file="+missing)
	if want := "--config-file: " + missing + ": no such file or directory"; err == nil || err.Error() != want {
		t.Errorf("missing file: %v, want %s", err, want)
	}
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file error does not wrap fs.ErrNotExist: %v", err)
	}
	s := testSpec()
	s.FileOption = ""
	_, err = s.Load(Sources{File: missing})
	if want := "config file " + missing + ": no such file or directory"; err == nil || err.Error() != want {
		t.Errorf("missing file without a file option: %v, want %s", err, want)
	}
}

func TestStrictFile(t *testing.T) {
	s := testSpec()
	s.StrictFileTypes = true
	s.Options[5].Kind = Int
	v := mustLoad(t, s, nil, "logging = \"debug\"\nXreconnect = 5\nenabled = true\nhost-allowlist = [\"a,b\", \" c \"]")
	if v.Get("logging").Text != "debug" || v.Get("Xreconnect").Text != "5" || v.Get("enabled").Text != "true" {
		t.Errorf("strict values: %+v %+v %+v", v.Get("logging"), v.Get("Xreconnect"), v.Get("enabled"))
	}
	if got := v.Get("host-allowlist").List(); !reflect.DeepEqual(got, []string{"a,b", " c "}) {
		t.Errorf("strict list %q", got)
	}
}

func TestLists(t *testing.T) {
	cases := []struct {
		name     string
		args     []string
		env      map[string]string
		file     string
		wantText string
		wantList []string
	}{
		{name: "default", wantText: "localhost,127.0.0.1", wantList: []string{"localhost", "127.0.0.1"}},
		{name: "flag replaces the default", args: []string{"--host-allowlist=a"}, wantText: "a", wantList: []string{"a"}},
		{name: "repeated flag accumulates", args: []string{"--host-allowlist=a, b", "--host-whitelist", "c"}, wantText: "a, b,c", wantList: []string{"a", "b", "c"}},
		{name: "empty flag", args: []string{"--host-allowlist="}, wantText: "", wantList: nil},
		{name: "env", env: map[string]string{"TEST_HOST_ALLOWLIST": "a,,b ,"}, wantText: "a,,b ,", wantList: []string{"a", "b"}},
		{name: "file array", file: `host-allowlist = ["a", "b"]`, wantText: "a,b", wantList: []string{"a", "b"}},
		{name: "file array items kept whole", file: `host-allowlist = ["x{1,2}", " y"]`, wantText: "x{1,2}, y", wantList: []string{"x{1,2}", " y"}},
		{name: "file array of numbers", file: "host-allowlist = [1, 2.5, true]", wantText: "1,2.5,true", wantList: []string{"1", "2.5", "true"}},
		{name: "file empty array", file: "host-allowlist = []", wantText: "", wantList: []string{}},
		{name: "file string", file: `host-allowlist = "a, b"`, wantText: "a, b", wantList: []string{"a", "b"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := mustLoad(t, testSpec(), tc.env, tc.file, tc.args...).Get("host-allowlist")
			if got.Text != tc.wantText || !reflect.DeepEqual(got.List(), tc.wantList) {
				t.Errorf("got %q %q, want %q %q", got.Text, got.List(), tc.wantText, tc.wantList)
			}
		})
	}
	v := mustLoad(t, testSpec(), nil, `host-allowlist = ["a"]`).Get("host-allowlist")
	v.List()[0] = "changed"
	if v.List()[0] != "a" {
		t.Error("List returns the value's own slice")
	}
}

func TestSplitList(t *testing.T) {
	for in, want := range map[string][]string{
		"":            nil,
		" , ,":        nil,
		"a":           {"a"},
		" a , b ,,c ": {"a", "b", "c"},
	} {
		if got := SplitList(in); !reflect.DeepEqual(got, want) {
			t.Errorf("SplitList(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestBoolForms(t *testing.T) {
	cases := []struct {
		name string
		args []string
		env  map[string]string
		file string
		want string
	}{
		{name: "default false", want: "false"},
		{name: "flag alone", args: []string{"--enabled"}, want: "true"},
		{name: "flag =false", args: []string{"--enabled=false"}, want: "false"},
		{name: "flag =FALSE over file", args: []string{"--enabled=FALSE"}, file: "enabled = true", want: "FALSE"},
		{name: "env", env: map[string]string{"TEST_ENABLED": "True"}, want: "True"},
		{name: "file boolean", file: "enabled = true", want: "true"},
		{name: "file string", file: `enabled = "false"`, want: "false"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := mustLoad(t, testSpec(), tc.env, tc.file, tc.args...).Get("enabled").Text; got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
	// A separate word after a bool flag is not its value (pflag, Besu).
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	AddFlags(fs, testSpec().Options...)
	if err := fs.Parse([]string{"--discovery", "false"}); err != nil || fs.Arg(0) != "false" {
		t.Errorf("--discovery false: %v %q", err, fs.Args())
	}
	for in, want := range map[string]any{
		"true": true, "TRUE": true, " False ": false, "false": false,
		"yes": "expected true or false", "1": "expected true or false", "": "expected true or false",
	} {
		got, err := ParseBool(in)
		if msg, isErr := want.(string); isErr {
			if err == nil || err.Error() != msg {
				t.Errorf("ParseBool(%q) = %v, %v; want error %q", in, got, err, msg)
			}
		} else if err != nil || got != want {
			t.Errorf("ParseBool(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
}

func TestMessages(t *testing.T) {
	file := writeFile(t, "port = \"x\"\nlogging = \"\"")
	v := mustLoad(t, testSpec(), map[string]string{"TEST_ENABLED": "maybe"}, "", "--config-file="+file, "--host-whitelist=*,a")
	bad := errors.New("bad")
	for _, tc := range []struct {
		err  error
		want string
	}{
		{v.Get("port").Invalid(bad), `invalid value "x" for --port (from "port" in config file ` + file + `): bad`},
		{v.Get("enabled").Invalid(bad), `invalid value "maybe" for --enabled (from environment variable TEST_ENABLED): bad`},
		{v.Get("host-allowlist").Invalid(bad), `invalid value "*,a" for --host-allowlist: bad`},
		{v.Get("Xreconnect").Invalid(bad), `invalid value "60" for --Xreconnect: bad`},
		{v.Get("logging").Required(), `--logging is required (from "logging" in config file ` + file + `)`},
		{v.Get("store.key-file").Required(), `--key-file is required`},
	} {
		if tc.err.Error() != tc.want {
			t.Errorf("got  %s\nwant %s", tc.err, tc.want)
		}
	}
	if !errors.Is(v.Get("port").Invalid(bad), bad) {
		t.Error("Invalid does not wrap the check's error")
	}
}

func TestAddFlags(t *testing.T) {
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	AddFlags(fs, testSpec().Options...)
	help := fs.FlagUsages()
	for _, want := range []string{
		"--port port ", "(default 8545)",
		"--host-allowlist list", "(default localhost,127.0.0.1)",
		"--enabled ", "Enable (default false)",
		"--discovery ", "Discover (default true)",
		"-l, --logging ", "Level (default INFO)", "-k, --key-file ",
	} {
		if !strings.Contains(help, want) {
			t.Errorf("help lacks %q:\n%s", want, help)
		}
	}
	for _, hidden := range []string{"host-whitelist", "Xreconnect"} {
		if strings.Contains(help, hidden) {
			t.Errorf("help shows %s", hidden)
		}
		if fs.Lookup(hidden) == nil {
			t.Errorf("no --%s flag", hidden)
		}
	}
	if u := fs.Lookup("host-whitelist").Usage; u != "Alias of --host-allowlist" {
		t.Errorf("alias usage %q", u)
	}
}

func TestEnvName(t *testing.T) {
	for _, tc := range []struct{ prefix, section, name, want string }{
		{"BASALT_", "", "rpc-http-port", "BASALT_RPC_HTTP_PORT"},
		{"ETHSIGNER_", "file-based-signer", "key-file", "ETHSIGNER_FILE_BASED_SIGNER_KEY_FILE"},
		{"ORION_", "", "nodeport", "ORION_NODEPORT"},
		{"BASALT_", "", "Xp2p-static-reconnect-seconds", "BASALT_XP2P_STATIC_RECONNECT_SECONDS"},
	} {
		if got := EnvName(tc.prefix, tc.section, tc.name); got != tc.want {
			t.Errorf("EnvName(%q, %q, %q) = %s, want %s", tc.prefix, tc.section, tc.name, got, tc.want)
		}
	}
	if got := FileKey("store", "key-file"); got != "store.key-file" {
		t.Errorf("FileKey = %s", got)
	}
}

func TestProgrammingErrors(t *testing.T) {
	mustPanic := func(name string, f func()) {
		t.Helper()
		defer func() {
			if recover() == nil {
				t.Errorf("%s did not panic", name)
			}
		}()
		f()
	}
	v := mustLoad(t, testSpec(), nil, "")
	mustPanic("Get of an unknown key", func() { v.Get("no-such-option") })
	mustPanic("Get of a section option without its section", func() { v.Get("key-file") })
	s := testSpec()
	s.Options = append(s.Options, Option{Name: "x", Aliases: []string{"port"}})
	mustPanic("an alias equal to another name", func() { _, _ = s.Load(Sources{}) })
}
