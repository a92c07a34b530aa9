// What the client scripts (test.mjs for ethers.js, viem.mjs for viem)
// share: the dev accounts, the step runner and its helpers, and the
// compiled Events.sol.
import { readFileSync } from "node:fs";
import solc from "solc";

// The endpoints ethers_test.go started: the node over HTTP and WebSocket,
// and basalt-signer in front of it.
export const HTTP = process.env.BASALT_HTTP;
export const WS = process.env.BASALT_WS;
export const SIGNER = process.env.BASALT_SIGNER;
if (!HTTP || !WS || !SIGNER) throw new Error("set BASALT_HTTP, BASALT_WS and BASALT_SIGNER");

// The dev network's funded accounts (README). ethers.js signs locally with
// the first, viem with the third; basalt-signer holds the second.
export const DEV = [
  { address: "0xFE3B557E8Fb62b89F4916B721be55cEb828dBd73", key: "0x8f2a55949038a9610f50fb23b5883af3b4ecb3c3bb792cbcefbd1542c692be63" },
  { address: "0x627306090abaB3A6e1400e9345bC60c78a8BEf57", key: "0xc87509a1c067bbde78beb793e6fa76530b6382a4c0241e5e4a9ec0a0f44dc0d3" },
  { address: "0xf17f52151EbEF6C7334FAD080c5704D77216b732", key: "0xae6ae8e5ccbfb04590405997ee2d52d2b330726137b875053c36d94e974d162f" },
];
export const SIGNER_ACCOUNT = DEV[1];

let passed = 0, failed = 0;

// step runs one check and prints "ok" or "FAIL" with its name; a failure
// does not stop the script (done() sets the exit code).
export async function step(name, fn) {
  const t0 = Date.now();
  try {
    await fn();
    passed++;
    console.log(`ok   ${name} (${Date.now() - t0} ms)`);
  } catch (e) {
    failed++;
    console.log(`FAIL ${name}: ${e.stack || e}`);
  }
}

// done prints the tally and exits, non-zero if a step failed.
export function done() {
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
}

// need fails a step at once when a value an earlier step should have made
// is missing, instead of letting it wait for something that cannot come.
export function need(...values) {
  for (const v of values) if (v == null || v === false) throw new Error("skipped: a step it builds on failed");
}

// within rejects if promise has not settled after ms.
export function within(ms, what, promise) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// until polls cond (which may be async) every 100 ms for up to ms.
export async function until(ms, what, cond) {
  await within(ms, what, (async () => { while (!(await cond())) await sleep(100); })());
}

// compile compiles Events.sol with solc and returns its ABI and bytecode.
export function compile() {
  const input = {
    language: "Solidity",
    sources: { "Events.sol": { content: readFileSync(new URL("./Events.sol", import.meta.url), "utf8") } },
    settings: { outputSelection: { "*": { "*": ["abi", "evm.bytecode.object"] } } },
  };
  const out = JSON.parse(solc.compile(JSON.stringify(input)));
  const errors = (out.errors || []).filter((e) => e.severity === "error");
  if (errors.length) throw new Error(errors.map((e) => e.formattedMessage).join("\n"));
  const c = out.contracts["Events.sol"].Events;
  return { abi: c.abi, bytecode: "0x" + c.evm.bytecode.object };
}

export const solcVersion = () => solc.version();

// The EIP-712 typed data both scripts sign through basalt-signer: nested
// structs, arrays of structs and addresses, bytes, bytes32 and a uint256
// too large for a JavaScript number.
export const typedData = {
  domain: { name: "Ether Mail", version: "1", chainId: 1337, verifyingContract: "0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC" },
  types: {
    Person: [{ name: "name", type: "string" }, { name: "wallets", type: "address[]" }],
    Mail: [
      { name: "from", type: "Person" }, { name: "to", type: "Person[]" }, { name: "contents", type: "string" },
      { name: "amount", type: "uint256" }, { name: "attachment", type: "bytes" }, { name: "tag", type: "bytes32" },
    ],
  },
  primaryType: "Mail",
  message: {
    from: { name: "Cow", wallets: ["0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826", "0xDeaDbeefdEAdbeefdEadbEEFdeadbeEFdEaDbeeF"] },
    to: [{ name: "Bob", wallets: ["0xbBbBBBBbbBBBbbbBbbBbbbbBBbBbbbbBbBbbBBbB"] }],
    contents: "Hello, Bob!",
    amount: 10n ** 30n,
    attachment: "0xc0ffee",
    tag: "0x" + "ab".repeat(32),
  },
};

// The messages both scripts sign with personal_sign (hex strings are the
// bytes they spell).
export const messages = ["Hello from basalt", "", "multi\nline ✓"];
export const rawMessage = "0xdeadbeef00ff";
