// Package signer is basalt-signer's JSON-RPC signing proxy, compatible
// with EthSigner: it holds signing keys, answers the methods that need them
// and passes everything else to a downstream node.
//
// # HTTP surface
//
//	GET  /upcheck   "I'm up!" (text/plain)
//	POST /          JSON-RPC: the methods below are answered here, every
//	                other request goes to the node unchanged
//	anything else   relayed to the node unchanged
//
// Relayed requests keep their method, path (under --downstream-http-path),
// query, headers (but Content-Length, Origin and hop-by-hop headers; Host
// becomes X-Forwarded-Host) and body; the node's status, headers (but
// Access-Control-Allow-Origin) and body come back unchanged. Every request
// first passes the Host allowlist (403), CORS (403 for a refused origin)
// and the body limit (413, nothing forwarded).
//
// # Methods
//
//   - eth_accounts: the keys' addresses, lower case, sorted.
//   - eth_sign [address, message]: r ‖ s ‖ v (v 27/28) over
//     keccak256("\x19Ethereum Signed Message:\n" + len + message); a 0x
//     message is hex, any other UTF-8.
//   - personal_sign [message, address]: the same signature (ethers'
//     signMessage); a third parameter (web3.js's password) is ignored.
//   - eth_signTypedData_v4 [address, typedData], also as
//     eth_signTypedData: r ‖ s ‖ v over the EIP-712 digest (package
//     typeddata); a domain chainId must be the signer's.
//   - eth_signTransaction [tx]: the signed raw transaction (nonce required).
//   - eth_sendTransaction [tx]: signed and sent as eth_sendRawTransaction;
//     fees the request leaves out come from the node (fees.go). With
//     privateFor, a GoQuorum private transaction: the data stored through
//     the privacy manager's Q2T API (Config.Tessera), signed with V 37/38
//     and sent as eth_sendRawPrivateTransaction (goquorum.go).
//   - eea_sendTransaction [tx]: a Besu private transaction (package
//     privtx) sent as eea_sendRawTransaction.
//
// Send-transaction calls whose transaction has no nonce get one from the
// node (eth_getTransactionCount pending; priv_getTransactionCount or
// priv_getEeaTransactionCount for private ones) through a nonce manager
// (package nonce), and are signed again with a new nonce, up to ten times,
// when the node answers Nonce too low, Known transaction or Replacement
// transaction underpriced. A call that got no answer from the node is
// never signed again.
//
// # Errors and HTTP statuses (EthSigner's)
//
//   - -32602 Invalid params, -32600, -32700: HTTP 400; the reason is given
//     in the message as current Besu does ("Invalid params (gas must be a
//     hex quantity ...)").
//   - -32000 "No unlocked account matches the Sender": HTTP 400 for
//     eth_sendTransaction and eea_sendTransaction, 200 for eth_sign,
//     personal_sign, eth_signTypedData_v4 and eth_signTransaction.
//   - Node unreachable: 504 -32000 "Failed to connect to downstream node";
//     no answer within the timeout: 504 -32000 "Connection to downstream
//     node timed out"; connection broken mid-request: 502 with the former.
//   - Nonce retries exhausted: 400 -32603 "Internal error (...)".
//   - The node's own answers (results and errors) are returned as the node
//     gave them; an error from a fee lookup also names the lookup.
//
// # Choices where EthSigner and the spec differ or are silent
//
//   - Fees: the spec (Document 3) and EthSigner default gasPrice to 0,
//     which a node with a minimum gas price (Besu's and Basalt's default
//     is 1000 wei) refuses, and ethers' JsonRpcSigner sends no fee at all.
//     eth_sendTransaction therefore asks the node for the fees a request
//     leaves out, as go-ethereum and ethers compute them: eth_gasPrice for
//     a legacy transaction, or, on a chain whose latest block has a
//     non-zero base fee, a type 2 transaction with eth_maxPriorityFeePerGas
//     and 2 × base fee + tip (fees.go). eth_signTransaction, which never
//     reaches the node, and eea_sendTransaction keep gasPrice 0. Gas stays
//     90000 without an estimate.
//   - EIP-1559 and EIP-2930: an EIP-1559 fee field makes a type 2
//     transaction, accessList alone a type 1 one, otherwise a legacy
//     EIP-155 transaction (EthSigner's only kind). "type" may be given;
//     gasPrice with fee caps is -32602. Private transactions are legacy
//     only.
//   - Message signing: EthSigner passes personal_sign and
//     eth_signTypedData_v4 to the node, which holds no key; the signer
//     answers them with its keys.
//   - A chainId in the transaction must equal --chain-id (-32602),
//     input is accepted as an alias of data, and eth_sendTransaction
//     refuses privateFrom without privateFor, and privacyGroupId (-32602),
//     instead of signing a public transaction the caller meant to be
//     private.
//   - GoQuorum private transactions store their data through the
//     manager's Q2T API (--tessera-url); EthSigner used the node's
//     goquorum_storeRaw, which only Besu's GoQuorum mode served.
//   - eea_sendTransaction: restriction must be "restricted" and value
//     absent or zero; privateFrom, privateFor and privacyGroupId are Base64
//     32-byte keys.
//   - Nonces: EthSigner's read-and-retry alone lets concurrent sends from
//     one account collide until the retries run out; the nonce manager
//     gives each its own nonce (see package nonce). Private nonces are
//     managed too, per sender and privacy group, and sent one at a time
//     per group, because a Basalt node takes a private transaction only at
//     its pending private nonce (EthSigner read them at Besu's chain head
//     and collided, issue #257).
//   - Batches, which EthSigner does not take, are handled (see batch.go).
//   - A request for a signer method without an id is answered with id
//     null, as EthSigner does; requests for other methods follow the node's
//     rules.
//   - A Host allowlist (--http-host-allowlist, default localhost and
//     127.0.0.1, as in Besu and Web3Signer) guards against DNS rebinding:
//     a page that rebinds its name to 127.0.0.1 must not reach a process
//     that signs transactions. EthSigner has none; give "*" to admit every
//     Host.
//   - Bodies are capped at 5 MiB (413); EthSigner has no cap.
package signer
