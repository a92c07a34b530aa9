// Package auth is the authentication and per-method authorization of the
// JSON-RPC endpoints, compatible with Besu's
// (--rpc-http-authentication-enabled and friends):
//
//   - a credentials file (TOML, [Users.<name>] with a bcrypt password hash
//     and permission strings; see LoadCredentials), checked by POST /login,
//     which answers a JWT;
//   - or an external public key (see LoadPublicKey) that verifies tokens
//     issued elsewhere, in which case /login is off;
//   - permission strings "*:*", "<group>:*" and "<group>:<method>" (see
//     Permitted), matched against every request.
//
// A Service is one endpoint's authentication: NewService builds it, Login
// serves POST /login, HTTPMiddleware and WSMiddleware read the bearer token
// of a request or of a WebSocket upgrade, and the Service itself is the
// rpc.Authorizer that the dispatcher asks for every request, every element
// of a batch and every WebSocket message.
//
// # Tokens
//
// In credentials mode each Service signs with its own RSA-2048 key
// generated at start (RS256) and puts its own audience in the tokens it
// issues, so a token from the HTTP endpoint is refused by the WebSocket one
// and the reverse, and tokens stop working when the node restarts. Claims:
// username, permissions, privacyPublicKey (when the user has one), aud, iat
// and exp = iat + 5 minutes. In public-key mode any token signed with the
// configured algorithm (RS256 by default; RS384, RS512, ES256, ES384, ES512)
// that carries exp is accepted, whatever its audience, and its permissions
// claim decides; a token without permissions may call nothing.
//
// Either way a token must be signed with exactly the configured algorithm
// ("none", HMAC and any other algorithm are refused before the signature is
// looked at), must have exp in the future and, if present, iat not in the
// future and nbf in the past, and each of its three segments must be
// canonical base64url (unused trailing bits zero), so a token has one
// spelling. The clock is injectable (Config.Now).
//
// # Security properties
//
//   - Passwords are compared by bcrypt (constant time in the hash). A login
//     for an unknown user, or a user without a password, runs bcrypt on a
//     dummy hash of the same cost, and every failure answers the same 401
//     with an empty body, so responses do not tell which users exist.
//   - Password checks run under a LoginLimiter (a few at once, a bounded
//     queue, 429 past it), so /login cannot be used to burn the CPU with
//     bcrypt.
//   - Neither tokens nor passwords are logged: authentication failures are
//     logged at debug level with a fixed reason only.
package auth
