package config

import (
	"reflect"
	"strings"
	"testing"
)

// TestGraphQLOptions checks the --graphql-http-* options from each source
// and their refusals.
func TestGraphQLOptions(t *testing.T) {
	got := mustLoad(t, nil, "--graphql-http-enabled", "--graphql-http-host=0.0.0.0", "--graphql-http-port=0",
		"--graphql-http-cors-origins=http://a.example", "--graphql-http-cors-origins=http://b.example").GraphQL
	want := GraphQLConfig{HTTPEnabled: true, HTTPHost: "0.0.0.0", HTTPPort: 0, HTTPCORSOrigins: []string{"http://a.example", "http://b.example"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("flags: got %+v, want %+v", got, want)
	}
	env := map[string]string{"BASALT_GRAPHQL_HTTP_ENABLED": "true", "BASALT_GRAPHQL_HTTP_PORT": "9547", "BASALT_GRAPHQL_HTTP_CORS_ORIGINS": "all"}
	if got := mustLoad(t, env).GraphQL; !got.HTTPEnabled || got.HTTPPort != 9547 || !reflect.DeepEqual(got.HTTPCORSOrigins, []string{"*"}) {
		t.Errorf("env: %+v", got)
	}
	file := writeFile(t, "c.toml", "graphql-http-enabled=true\ngraphql-http-port=8600\ngraphql-http-cors-origins=[\"http://c.example\"]\n")
	if got := mustLoad(t, nil, "--config-file="+file).GraphQL; !got.HTTPEnabled || got.HTTPPort != 8600 || !reflect.DeepEqual(got.HTTPCORSOrigins, []string{"http://c.example"}) {
		t.Errorf("config file: %+v", got)
	}

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--graphql-http-port=65536"}, `invalid value "65536" for --graphql-http-port`},
		{[]string{"--graphql-http-host= "}, `for --graphql-http-host: must not be empty`},
		{[]string{"--graphql-http-enabled=maybe"}, `for --graphql-http-enabled: expected true or false`},
		{[]string{"--graphql-http-cors-origins=(("}, `for --graphql-http-cors-origins: origin "((" is not a valid regular expression`},
		{[]string{"--graphql-http-enabled", "--rpc-http-enabled", "--graphql-http-port=8545"}, "port 8545 is given to both --rpc-http-port and --graphql-http-port"},
	} {
		_, err := loadArgs(t, nil, tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want %q", tc.args, err, tc.want)
		}
	}
	// Disabled services do not hold their port.
	if _, err := loadArgs(t, nil, "--rpc-http-enabled", "--graphql-http-port=8545"); err != nil {
		t.Errorf("disabled GraphQL on the JSON-RPC port: %v", err)
	}
}
