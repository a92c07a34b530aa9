package auth

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"sync"

	"github.com/BurntSushi/toml"
	"golang.org/x/crypto/bcrypt"
)

// User is one user of a credentials file.
type User struct {
	// Name is the table name in [Users.<name>].
	Name string
	// Permissions are the user's permission strings (never nil).
	Permissions []string
	// PrivacyPublicKey is the optional privacyPublicKey, copied into tokens.
	PrivacyPublicKey string

	hash []byte // bcrypt hash; empty: the user cannot log in
}

// Credentials are the users of a credentials file (Besu's TomlAuth):
//
//	[Users.alice]
//	password = "$2a$10$..."          # bcrypt hash, made with `basalt password hash`
//	permissions = ["eth:*", "net:version"]
//	privacyPublicKey = "..."         # optional
//
// Other keys (groups, roles, ...) and other tables ([Groups.x], [Roles.x])
// are allowed and ignored, as in Besu. A user without a password, or with
// an empty one, exists but cannot log in.
//
// Like Besu, which reads the file on every login, Credentials re-read the
// file when a login needs it, so users can be added, changed or removed
// without a restart; if the file has become unreadable or invalid, the
// users last read stay in force (and the error is reported to the caller,
// which logs it).
type Credentials struct {
	path string

	mu    sync.Mutex
	users map[string]*User
}

// credentialsFile is the decoded TOML.
type credentialsFile struct {
	Users map[string]struct {
		Password         passwordHash `toml:"password"`
		Permissions      []string     `toml:"permissions"`
		PrivacyPublicKey string       `toml:"privacyPublicKey"`
	} `toml:"Users"`
}

// passwordHash is a password value that must be a bcrypt hash (or empty);
// checking it while decoding lets the TOML decoder report the line.
type passwordHash []byte

// UnmarshalText implements encoding.TextUnmarshaler.
func (h *passwordHash) UnmarshalText(b []byte) error {
	if len(b) > 0 {
		if _, err := bcrypt.Cost(b); err != nil {
			return errors.New("password is not a bcrypt hash (make one with `basalt password hash --password=<password>`)")
		}
	}
	*h = slices.Clone(b)
	return nil
}

// LoadCredentials reads and checks a credentials file. Errors name the file
// and, for invalid TOML or a value of the wrong type, the line.
func LoadCredentials(path string) (*Credentials, error) {
	users, err := readCredentials(path)
	if err != nil {
		return nil, err
	}
	return &Credentials{path: path, users: users}, nil
}

// Path is the file the credentials come from.
func (c *Credentials) Path() string { return c.path }

// Users returns the names of the users, sorted.
func (c *Credentials) Users() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	names := make([]string, 0, len(c.users))
	for n := range c.users {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// lookup re-reads the file and returns the named user (nil if there is
// none). If the file cannot be read, it answers from the users last read
// and also returns the error.
func (c *Credentials) lookup(name string) (*User, error) {
	users, err := readCredentials(c.path)
	c.mu.Lock()
	defer c.mu.Unlock()
	if err == nil {
		c.users = users
	}
	return c.users[name], err
}

func readCredentials(path string) (map[string]*User, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read credentials file: %w", err)
	}
	var f credentialsFile
	md, err := toml.Decode(string(data), &f)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) && pe.Position.Line > 0 {
			return nil, fmt.Errorf("credentials file %s: line %d: %s", path, pe.Position.Line, pe.Message)
		}
		return nil, fmt.Errorf("credentials file %s: %v", path, err)
	}
	if t := md.Type("Users"); t != "" && t != "Hash" {
		return nil, fmt.Errorf("credentials file %s: Users must be a table of [Users.<name>] tables", path)
	}
	users := make(map[string]*User, len(f.Users))
	for name, u := range f.Users {
		perms := u.Permissions
		if perms == nil {
			perms = []string{}
		}
		users[name] = &User{Name: name, Permissions: perms, PrivacyPublicKey: u.PrivacyPublicKey, hash: u.Password}
	}
	return users, nil
}
