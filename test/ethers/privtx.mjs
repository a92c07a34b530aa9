// privtx.mjs builds and signs a Besu private transaction with ethers.js v6
// alone (RLP, keccak256, secp256k1), independently of basalt's codec, and
// prints its raw hex. The privacy end-to-end test (test/privacy) sends it
// with eea_sendRawTransaction. Fields come from the environment: KEY,
// CHAIN_ID, NONCE, GAS, TO (empty: creation), DATA, PRIVATE_FROM and
// PRIVATE_FOR (Base64, comma-separated).
import { encodeRlp, keccak256, SigningKey, toBeArray, getBytes, decodeBase64 } from "ethers";

const e = process.env;
const int = (v) => toBeArray(BigInt(v));
const fields = [int(e.NONCE), int(0), int(e.GAS), e.TO ? getBytes(e.TO) : new Uint8Array(), int(0), getBytes(e.DATA || "0x")];
const priv = [
  decodeBase64(e.PRIVATE_FROM),
  (e.PRIVATE_FOR || "").split(",").filter((k) => k).map((k) => decodeBase64(k)),
  new TextEncoder().encode("restricted"),
];
const chainId = BigInt(e.CHAIN_ID);
// EIP-155 style: the chain-ID triple comes before the private fields.
const digest = keccak256(encodeRlp([...fields, int(chainId), int(0), int(0), ...priv]));
const sig = new SigningKey(e.KEY).sign(digest);
const v = chainId * 2n + 35n + BigInt(sig.yParity);
console.log(encodeRlp([...fields, int(v), toBeArray(BigInt(sig.r)), toBeArray(BigInt(sig.s)), ...priv]));
