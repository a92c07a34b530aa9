// viem against a running basalt dev node and a basalt-signer in front of it
// (see ethers_test.go, which starts both and runs this script with
// BASALT_HTTP, BASALT_WS and BASALT_SIGNER set). The node mines empty
// blocks about once a second until the script sends something.
//
// A public client and a wallet client (a local account) over HTTP: getBlock
// of an empty block, estimateFeesPerGas, sendTransaction, deployContract
// (Events.sol compiled with solc), writeContract, waitForTransactionReceipt,
// getLogs; a public client over WebSocket: watchBlocks (newHeads). Then a
// wallet client whose account is the key basalt-signer holds (a JSON-RPC
// account: viem leaves nonce, gas and fees to the signer): sendTransaction,
// writeContract, deployContract, signMessage (personal_sign) and signTypedData
// (eth_signTypedData_v4), verified by recovering the signer's address.
import assert from "node:assert/strict";
import {
  createPublicClient, createWalletClient, defineChain, http, webSocket, parseAbiItem, getAddress,
  verifyMessage, verifyTypedData,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import {
  HTTP, WS, SIGNER, DEV, SIGNER_ACCOUNT, step, done, need, within, until, compile, solcVersion, typedData, messages, rawMessage,
} from "./harness.mjs";

const basaltDev = defineChain({
  id: 1337,
  name: "Basalt dev",
  nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
  rpcUrls: { default: { http: [HTTP], webSocket: [WS] } },
});

const account = privateKeyToAccount(DEV[2].key);
const OTHER = DEV[0].address;
const SIGNER_ADDRESS = SIGNER_ACCOUNT.address;

const publicClient = createPublicClient({ chain: basaltDev, transport: http(HTTP), pollingInterval: 250 });
const walletClient = createWalletClient({ account, chain: basaltDev, transport: http(HTTP), pollingInterval: 250 });
const wsClient = createPublicClient({ chain: basaltDev, transport: webSocket(WS), pollingInterval: 250 });

// mined waits (a minute at most) for hash's receipt and checks it succeeded.
async function mined(hash) {
  const r = await publicClient.waitForTransactionReceipt({ hash, timeout: 60000, pollingInterval: 250 });
  assert.equal(r.status, "success", `receipt of ${hash}`);
  return r;
}

let abi, bytecode;
await step("compile Events.sol with solc " + solcVersion(), async () => {
  ({ abi, bytecode } = compile());
  assert.ok(bytecode.length > 100);
});

await step("getChainId over HTTP and WebSocket", async () => {
  assert.equal(await publicClient.getChainId(), 1337);
  assert.equal(await wsClient.getChainId(), 1337);
});

// watchBlocks over WebSocket (eth_subscribe newHeads): watching from here
// on; checked near the end.
const watched = [];
let watchError;
const unwatch = wsClient.watchBlocks({
  onBlock: (block) => watched.push(block),
  onError: (e) => { watchError = e; },
});

// Nothing has been sent yet: every block so far is empty.
await step("getBlock of an empty block: transactions is []", async () => {
  await until(60000, "block 1", async () => (await publicClient.getBlockNumber({ cacheTime: 0 })) >= 1n);
  const one = await publicClient.getBlock({ blockNumber: 1n });
  const latest = await publicClient.getBlock();
  const full = await publicClient.getBlock({ blockNumber: 1n, includeTransactions: true });
  for (const block of [one, latest, full]) {
    assert.deepEqual(block.transactions, []);
    assert.equal(block.gasUsed, 0n);
    assert.deepEqual(block.uncles, []);
  }
  assert.equal(one.number, 1n);
  assert.equal((await publicClient.getBlock({ blockHash: one.hash })).hash, one.hash);
  // viem reads a missing transactions field as []: look at the answer itself.
  for (const hydrated of [false, true]) {
    const raw = await publicClient.request({ method: "eth_getBlockByNumber", params: ["0x1", hydrated] });
    assert.deepEqual(raw.transactions, [], `eth_getBlockByNumber hydrated=${hydrated}`);
  }
});

await step("estimateFeesPerGas: EIP-1559 fees over a non-zero base fee", async () => {
  const block = await publicClient.getBlock();
  assert.equal(typeof block.baseFeePerGas, "bigint");
  assert.ok(block.baseFeePerGas > 0n, `baseFeePerGas ${block.baseFeePerGas}`);
  const fees = await publicClient.estimateFeesPerGas();
  assert.equal(typeof fees.maxPriorityFeePerGas, "bigint"); // a zero tip is fine
  assert.ok(fees.maxFeePerGas > block.baseFeePerGas);
  assert.ok(fees.maxFeePerGas >= fees.maxPriorityFeePerGas);
  assert.equal(fees.gasPrice, undefined);
  const legacy = await publicClient.estimateFeesPerGas({ type: "legacy" });
  assert.ok(legacy.gasPrice > 0n);
  assert.ok((await publicClient.getGasPrice()) > 0n);
});

await step("sendTransaction (no fee fields, local account), mined", async () => {
  const before = await publicClient.getBalance({ address: SIGNER_ADDRESS });
  const hash = await walletClient.sendTransaction({ to: SIGNER_ADDRESS, value: 4242n });
  const r = await mined(hash);
  assert.equal(r.type, "eip1559");
  assert.equal(getAddress(r.from), account.address);
  assert.equal(getAddress(r.to), SIGNER_ADDRESS);
  assert.equal(await publicClient.getBalance({ address: SIGNER_ADDRESS, blockNumber: r.blockNumber }), before + 4242n);
  const tx = await publicClient.getTransaction({ hash });
  assert.equal(tx.type, "eip1559");
  const block = await publicClient.getBlock({ blockNumber: r.blockNumber });
  assert.ok(r.effectiveGasPrice >= block.baseFeePerGas);
  assert.ok(block.transactions.includes(hash));
});

let address, deployBlock;
await step("deployContract and waitForTransactionReceipt", async () => {
  need(abi);
  const hash = await walletClient.deployContract({ abi, bytecode });
  const r = await mined(hash);
  assert.equal(r.type, "eip1559");
  assert.ok(r.contractAddress);
  address = getAddress(r.contractAddress);
  deployBlock = r.blockNumber;
  const code = await publicClient.getCode({ address });
  assert.ok(code && code.length > 2);
});

const values = [11n, 22n];
const receipts = [];
await step("writeContract store() twice, mined; readContract", async () => {
  need(address);
  for (const v of values) {
    const hash = await walletClient.writeContract({ address, abi, functionName: "store", args: [v, `viem ${v}`] });
    const r = await mined(hash);
    assert.equal(r.logs.length, 1);
    receipts.push(r);
  }
  assert.equal(await publicClient.readContract({ address, abi, functionName: "value" }), 22n);
});

const stored = parseAbiItem("event Stored(address indexed from, uint256 indexed value, string note)");
await step("getLogs: by event, by indexed argument, by block hash", async () => {
  need(receipts.length === values.length);
  let logs = await publicClient.getLogs({ address, event: stored, fromBlock: deployBlock, toBlock: "latest" });
  assert.deepEqual(logs.map((l) => l.args.value), values);
  assert.deepEqual(logs.map((l) => l.args.note), values.map((v) => `viem ${v}`));
  assert.ok(logs.every((l) => getAddress(l.args.from) === account.address));
  assert.deepEqual(logs.map((l) => l.transactionHash), receipts.map((r) => r.transactionHash));
  logs = await publicClient.getLogs({ address, event: stored, args: { value: 22n }, fromBlock: deployBlock });
  assert.equal(logs.length, 1);
  assert.equal(logs[0].blockHash, receipts[1].blockHash);
  logs = await publicClient.getLogs({ event: stored, blockHash: receipts[0].blockHash });
  assert.equal(logs.length, 1);
  assert.equal(logs[0].args.value, 11n);
  logs = await publicClient.getContractEvents({ address, abi, eventName: "Stored", fromBlock: deployBlock });
  assert.equal(logs.length, 2);
  logs = await publicClient.getLogs({ address: OTHER, fromBlock: deployBlock });
  assert.equal(logs.length, 0);
});

await step("watchBlocks over WebSocket received at least 2 blocks", async () => {
  await until(30000, "2 blocks from watchBlocks", () => watched.length >= 2 || watchError);
  if (watchError) throw watchError;
  for (let i = 1; i < watched.length; i++) {
    assert.ok(watched[i].number > watched[i - 1].number, `block ${watched[i].number} after ${watched[i - 1].number}`);
  }
  // They are the chain's blocks.
  for (const b of watched.slice(0, 2)) {
    assert.equal(typeof b.number, "bigint");
    const canonical = await publicClient.getBlock({ blockNumber: b.number });
    assert.equal(b.hash, canonical.hash);
    assert.equal(b.parentHash, canonical.parentHash);
  }
});
unwatch();

// basalt-signer: viem sends eth_sendTransaction without nonce, gas or fees,
// and signs with personal_sign and eth_signTypedData_v4.
const signerClient = createWalletClient({ account: SIGNER_ADDRESS, chain: basaltDev, transport: http(SIGNER), pollingInterval: 250 });
const signerKey = privateKeyToAccount(SIGNER_ACCOUNT.key);

await step("signer: getAddresses (eth_accounts)", async () => {
  assert.deepEqual(await signerClient.getAddresses(), [SIGNER_ADDRESS]);
});

await step("signer: sendTransaction with no nonce, gas or fee fields, mined", async () => {
  const to = "0x00000000000000000000000000000000000b0a17";
  const hash = await signerClient.sendTransaction({ to, value: 99n });
  const r = await mined(hash);
  assert.equal(getAddress(r.from), SIGNER_ADDRESS);
  assert.equal(getAddress(r.to), getAddress(to));
  assert.equal(await publicClient.getBalance({ address: to, blockNumber: r.blockNumber }), 99n);
});

await step("signer: writeContract, mined", async () => {
  need(address);
  const hash = await signerClient.writeContract({ address, abi, functionName: "store", args: [33n, "via the signer"] });
  const r = await mined(hash);
  assert.equal(r.logs.length, 1);
  assert.equal(await publicClient.readContract({ address, abi, functionName: "value", blockNumber: r.blockNumber }), 33n);
});

// viem leaves gas to the wallet too, and the signer's default is the
// spec's (EthSigner's) 90000, too little for a deployment: give gas.
await step("signer: deployContract with explicit gas, mined", async () => {
  need(abi);
  const hash = await signerClient.deployContract({ abi, bytecode, gas: 1_000_000n });
  const r = await mined(hash);
  assert.equal(getAddress(r.from), SIGNER_ADDRESS);
  const code = await publicClient.getCode({ address: r.contractAddress });
  assert.ok(code && code.length > 2);
});

await step("signer: signMessage (personal_sign) verified with verifyMessage", async () => {
  for (const message of [...messages, { raw: rawMessage }]) {
    const signature = await signerClient.signMessage({ message });
    assert.ok(await verifyMessage({ address: SIGNER_ADDRESS, message, signature }), `message ${JSON.stringify(message)}`);
    assert.equal(signature, await signerKey.signMessage({ message }));
  }
});

await step("signer: signTypedData (eth_signTypedData_v4) verified with verifyTypedData", async () => {
  const signature = await signerClient.signTypedData(typedData);
  assert.ok(await verifyTypedData({ address: SIGNER_ADDRESS, ...typedData, signature }));
  assert.equal(signature, await signerKey.signTypedData(typedData));
});

done();
