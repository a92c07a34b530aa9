package auth

import "golang.org/x/crypto/bcrypt"

// PasswordCost is the bcrypt cost of HashPassword, Besu's (Spring
// Security's BCrypt default).
const PasswordCost = 10

// HashPassword returns a bcrypt hash of password ("$2a$10$" and 53
// characters, fresh salt) for a credentials file, as `besu password hash`
// prints it. bcrypt reads at most 72 bytes: a longer password is an error.
func HashPassword(password string) (string, error) {
	h, err := bcrypt.GenerateFromPassword([]byte(password), PasswordCost)
	if err != nil {
		return "", err
	}
	return string(h), nil
}

// dummyHash is a bcrypt hash, at PasswordCost, of a random password nobody
// knows. A login for an unknown user (or one without a password) is
// checked against it, so that it costs the same as a login with a wrong
// password and its timing does not tell whether the user exists.
var dummyHash = []byte("$2a$10$xxzKHYuL7Jnz5V8P.h95r.fDTjnPSDkJD0BKcJWWBNAdYsh7lWflW")

// passwordMatches is bcrypt's comparison, constant-time in the hash.
func passwordMatches(hash []byte, password string) bool {
	return bcrypt.CompareHashAndPassword(hash, []byte(password)) == nil
}
