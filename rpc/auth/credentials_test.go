package auth

import (
	"os"
	"reflect"
	"strings"
	"testing"

	"golang.org/x/crypto/bcrypt"
)

func TestLoadCredentials(t *testing.T) {
	c, err := LoadCredentials(writeFile(t, "auth.toml", credentialsTOML(pegasysHash)))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := c.Users(), []string{"admin", "eth", "none", "nopassword", "one"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("users %q, want %q", got, want)
	}
	u, err := c.lookup("one")
	if err != nil || u == nil {
		t.Fatal(u, err)
	}
	if !reflect.DeepEqual(u.Permissions, []string{"net:version", "eth:blockNumber", "fakePermission"}) || string(u.hash) != pegasysHash {
		t.Errorf("user one %+v", u)
	}
	if !passwordMatches(u.hash, "pegasys") {
		t.Error("Besu's test vector: pegasys does not match its hash")
	}
	if u, _ := c.lookup("none"); u.Permissions == nil || len(u.Permissions) != 0 {
		t.Errorf("empty permissions %#v", u.Permissions)
	}
	if u, _ := c.lookup("nopassword"); len(u.hash) != 0 {
		t.Errorf("user without password has hash %q", u.hash)
	}
	if u, _ := c.lookup("eth"); u.PrivacyPublicKey != "A1aVtMxLCUHmBVHXoZzzBgPbW/wj5axDpW9X8l91SGo=" {
		t.Errorf("privacyPublicKey %q", u.PrivacyPublicKey)
	}
	if u, _ := c.lookup("nobody"); u != nil {
		t.Errorf("unknown user %+v", u)
	}
	// A file without users is valid (nobody can log in).
	if c, err := LoadCredentials(writeFile(t, "empty.toml", "")); err != nil || len(c.Users()) != 0 {
		t.Errorf("empty file: %v %v", c, err)
	}
	// $2b$ and $2y$ hashes are accepted (Besu's documentation shows $2b$).
	for _, v := range []string{"$2b$", "$2y$"} {
		h := v + strings.TrimPrefix(fastHash, "$2a$")
		c, err = LoadCredentials(writeFile(t, "2b.toml", "[Users.u]\npassword = \""+h+"\"\n"))
		if err != nil {
			t.Fatal(err)
		}
		if u, _ := c.lookup("u"); !passwordMatches(u.hash, "pegasys") || passwordMatches(u.hash, "Pegasys") {
			t.Errorf("%s hash does not check", v)
		}
	}
}

func TestLoadCredentialsErrors(t *testing.T) {
	cases := []struct{ name, content, want string }{
		{"syntax", "[Users.a]\npassword = \"" + pegasysHash + "\"\n\npermissions = [\"eth:*\"\n", "line 4: expected a comma"},
		{"permissions not an array", "[Users.a]\npermissions = \"eth:*\"\n", `line 2 (last key "Users.a.permissions"): incompatible types`},
		{"permission not a string", "[Users.a]\npermissions = [1]\n", `line 2 (last key "Users.a.permissions"): incompatible types`},
		{"password not a hash", "[Users.a]\n\npassword = \"pegasys\"\n", "line 3: password is not a bcrypt hash (make one with `basalt password hash --password=<password>`)"},
		{"password not a string", "[Users.a]\npassword = 12\n", "line 2: password is not a bcrypt hash"},
		{"user not a table", "[Users]\na = 3\n", `line 2 (last key "Users.a"): type mismatch`},
		{"users not a table", "Users = 3\n", "Users must be a table of [Users.<name>] tables"},
		{"duplicate user", "[Users.a]\n[Users.a]\n", "line 2"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := writeFile(t, "auth.toml", tc.content)
			_, err := LoadCredentials(p)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), p) {
				t.Fatalf("error %v, want %q and the path", err, tc.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error has several lines: %q", err)
			}
		})
	}
	if _, err := LoadCredentials("/nonexistent/auth.toml"); err == nil || !strings.Contains(err.Error(), "/nonexistent/auth.toml") {
		t.Errorf("missing file: %v", err)
	}
}

// TestCredentialsReload: like Besu, a login reads the file again, so users
// can be added and removed at run time; a file broken meanwhile leaves the
// last good users in force.
func TestCredentialsReload(t *testing.T) {
	p := writeFile(t, "auth.toml", "[Users.a]\npassword = \""+pegasysHash+"\"\n")
	c, err := LoadCredentials(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("[Users.b]\npassword = \""+pegasysHash+"\"\npermissions=[\"eth:*\"]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if u, err := c.lookup("b"); u == nil || err != nil || u.Permissions[0] != "eth:*" {
		t.Fatalf("added user: %+v %v", u, err)
	}
	if u, _ := c.lookup("a"); u != nil {
		t.Fatal("removed user still there")
	}
	if err := os.WriteFile(p, []byte("[Users.b"), 0o600); err != nil {
		t.Fatal(err)
	}
	if u, err := c.lookup("b"); u == nil || err == nil {
		t.Fatalf("broken file: %+v %v", u, err)
	}
}

func TestHashPassword(t *testing.T) {
	h, err := HashPassword("pegasys")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(h, "$2a$10$") || len(h) != 60 {
		t.Errorf("hash %q: want $2a$10$ and 53 characters", h)
	}
	if !passwordMatches([]byte(h), "pegasys") {
		t.Error("hash does not check")
	}
	// The hash is accepted by a credentials file.
	if _, err := LoadCredentials(writeFile(t, "a.toml", "[Users.u]\npassword = \""+h+"\"\n")); err != nil {
		t.Error(err)
	}
	if _, err := HashPassword(strings.Repeat("x", 73)); err == nil {
		t.Error("73-byte password hashed (bcrypt reads 72)")
	}
	if cost, _ := bcrypt.Cost(dummyHash); cost != PasswordCost {
		t.Errorf("dummy hash cost %d, want %d (an unknown user must cost what a known one does)", cost, PasswordCost)
	}
}
