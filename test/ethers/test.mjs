// ethers.js v6 against a running basalt dev node and a basalt-signer in
// front of it (see ethers_test.go, which starts both and runs this script
// with BASALT_HTTP, BASALT_WS and BASALT_SIGNER set). The node mines empty
// blocks about once a second until the script sends something.
//
// It reads an empty block, asks for fee data (EIP-1559 fields), deploys
// Events.sol (compiled with solc) and sends value with no fee fields at all
// and as a type-2 transaction priced by ethers; calls the contract and reads
// the Stored events four ways: eth_getLogs, a polling filter
// (eth_newFilter + eth_getFilterChanges, what ethers uses for contract.on
// over HTTP), a WebSocket logs subscription, and newHeads. Through the
// signer (a JsonRpcSigner for the key it holds) it sends a transaction with
// no fee fields and signs a message (personal_sign) and typed data
// (eth_signTypedData_v4), verified with ethers.verifyMessage and
// ethers.verifyTypedData.
import assert from "node:assert/strict";
import { ethers } from "ethers";
import {
  HTTP, WS, SIGNER, DEV, SIGNER_ACCOUNT, step, done, need, within, until, compile, solcVersion, typedData, messages, rawMessage,
} from "./harness.mjs";

const KEY = DEV[0].key;
const SIGNER_KEY = SIGNER_ACCOUNT.key;
const SIGNER_ADDRESS = SIGNER_ACCOUNT.address;
const OTHER = DEV[2].address;

// cacheTimeout -1: ethers otherwise answers an identical request made
// within 250 ms from its cache, so a send right after a quickly mined one
// could reuse the same "pending" nonce.
const http = new ethers.JsonRpcProvider(HTTP, undefined, { pollingInterval: 250, cacheTimeout: -1 });
const ws = new ethers.WebSocketProvider(WS);
const wallet = new ethers.Wallet(KEY, http);

let abi, bytecode, contract, address, deployBlock;

// mined waits (a minute at most) for tx's receipt and checks it succeeded.
async function mined(tx) {
  const r = await within(60000, `the receipt of ${tx.hash}`, tx.wait());
  assert.equal(r.status, 1);
  return r;
}

await step("compile Events.sol with solc " + solcVersion(), async () => {
  ({ abi, bytecode } = compile());
  assert.ok(bytecode.length > 100);
});

await step("network over HTTP and WebSocket", async () => {
  assert.equal((await http.getNetwork()).chainId, 1337n);
  assert.equal((await ws.getNetwork()).chainId, 1337n);
});

// Nothing has been sent yet: every block so far is empty.
await step("getBlock() of an empty block: transactions is []", async () => {
  await until(60000, "block 1", async () => (await http.getBlockNumber()) >= 1);
  for (const tag of [1, "latest", undefined]) {
    const block = await http.getBlock(tag);
    assert.ok(block, `block ${tag}`);
    assert.deepEqual(block.transactions, [], `block ${tag}`);
    assert.ok(block.number >= 1);
    assert.equal(block.gasUsed, 0n);
  }
  const full = await http.getBlock(1, true);
  assert.deepEqual(full.prefetchedTransactions, []);
  // The raw answer, as every client sees it.
  for (const hydrated of [false, true]) {
    const raw = await http.send("eth_getBlockByNumber", ["0x1", hydrated]);
    assert.deepEqual(raw.transactions, [], `hydrated=${hydrated}`);
    assert.deepEqual(raw.uncles, []);
  }
  const byHash = await http.send("eth_getBlockByHash", [full.hash, false]);
  assert.deepEqual(byHash.transactions, []);
});

await step("an omitted block parameter means latest", async () => {
  // OTHER does not mine (the coinbase's balance moves every block) and has
  // sent nothing yet.
  const latest = await http.send("eth_getBalance", [OTHER, "latest"]);
  assert.ok(BigInt(latest) > 0n);
  assert.equal(await http.send("eth_getBalance", [OTHER]), latest);
  assert.equal(await http.send("eth_getTransactionCount", [OTHER]), "0x0");
  assert.equal(await http.send("eth_getCode", [OTHER]), "0x");
  assert.equal(await http.send("eth_call", [{ to: OTHER, data: "0x" }]), "0x");
});

let feeData, baseFee;
await step("getFeeData(): EIP-1559 fields (non-zero base fee)", async () => {
  baseFee = (await http.getBlock("latest")).baseFeePerGas;
  assert.ok(baseFee != null && baseFee > 0n, `baseFeePerGas ${baseFee}`);
  feeData = await http.getFeeData();
  assert.ok(feeData.maxFeePerGas != null, "maxFeePerGas is null");
  assert.ok(feeData.maxPriorityFeePerGas != null, "maxPriorityFeePerGas is null");
  assert.ok(feeData.gasPrice != null && feeData.gasPrice > 0n);
  assert.ok(feeData.maxFeePerGas >= feeData.maxPriorityFeePerGas);
  assert.ok(feeData.maxFeePerGas > baseFee);
});

await step("ContractFactory.deploy() with no overrides, mined", async () => {
  need(abi);
  const factory = new ethers.ContractFactory(abi, bytecode, wallet);
  contract = await factory.deploy();
  const tx = contract.deploymentTransaction();
  assert.equal(tx.type, 2); // ethers priced it as EIP-1559
  const receipt = await mined(tx);
  assert.equal(receipt.type, 2);
  address = await contract.getAddress();
  assert.equal(receipt.contractAddress, address);
  deployBlock = receipt.blockNumber;
  assert.notEqual(await http.getCode(address), "0x");
});

await step("wallet.sendTransaction({to, value}) with no fee fields, mined", async () => {
  const before = await http.getBalance(OTHER);
  const tx = await wallet.sendTransaction({ to: OTHER, value: 12345n });
  assert.equal(tx.type, 2);
  assert.ok(tx.maxFeePerGas > 0n && tx.maxPriorityFeePerGas >= 0n); // a zero tip is fine
  const r = await mined(tx);
  assert.equal(r.to, OTHER);
  const block = await http.getBlock(r.blockNumber);
  assert.ok(r.gasPrice >= block.baseFeePerGas); // the effective gas price
  assert.equal(await http.getBalance(OTHER, r.blockNumber), before + 12345n);
});

await step("type-2 send priced by ethers, mined", async () => {
  const tx = await wallet.sendTransaction({ to: OTHER, value: 1n, type: 2 });
  assert.equal(tx.type, 2);
  assert.ok(tx.maxFeePerGas > 0n && tx.maxPriorityFeePerGas >= 0n); // a zero tip is fine
  assert.ok(tx.gasPrice == null); // no legacy price
  const r = await mined(tx);
  assert.equal(r.type, 2);
  const block = await http.getBlock(r.blockNumber);
  assert.ok(block.baseFeePerGas > 0n);
  assert.equal(r.gasPrice, block.baseFeePerGas + (tx.maxPriorityFeePerGas < tx.maxFeePerGas - block.baseFeePerGas ? tx.maxPriorityFeePerGas : tx.maxFeePerGas - block.baseFeePerGas));
});

// Listeners first, then the transactions that should reach them.
const polled = [], pushed = [], heads = [];
let pollingFilter, blockFilter, wsContract, listening = false;
await step("install a polling filter and WebSocket subscriptions", async () => {
  need(contract);
  await contract.on("Stored", (from, value, note, ev) => polled.push({ value, note, ev }));
  wsContract = new ethers.Contract(address, abi, ws);
  await wsContract.on("Stored", (from, value, note, ev) => pushed.push({ value, note, ev }));
  await ws.on("block", (n) => heads.push(n));
  // A raw filter too, polled by hand below.
  pollingFilter = await http.send("eth_newFilter", [{ address, fromBlock: ethers.toQuantity(deployBlock), topics: [contract.interface.getEvent("Stored").topicHash] }]);
  assert.match(pollingFilter, /^0x[0-9a-f]+$/);
  blockFilter = await http.send("eth_newBlockFilter", []);
  listening = true;
});

const values = [7n, 42n];
const receipts = [];
let stored = false;
await step("call store() twice (type-2 transactions priced by ethers, wait for receipts)", async () => {
  need(contract);
  for (const v of values) {
    const tx = await contract.store(v, `note ${v}`, { type: 2 });
    assert.equal(tx.type, 2);
    const r = await within(60000, "a receipt", tx.wait());
    assert.equal(r.status, 1);
    assert.equal(r.type, 2);
    assert.equal(r.logs.length, 1);
    receipts.push(r);
  }
  assert.equal(await contract.value(), 42n);
  stored = true;
});

await step("getLogs: queryFilter by address and event", async () => {
  need(stored);
  const events = await contract.queryFilter("Stored", deployBlock, "latest");
  assert.deepEqual(events.map((e) => e.args.value), values);
  assert.deepEqual(events.map((e) => e.args.note), values.map((v) => `note ${v}`));
  assert.equal(events[0].transactionHash, receipts[0].hash);
  assert.equal(events[1].blockHash, receipts[1].blockHash);
});

await step("getLogs: topic OR-list, null position, block hash", async () => {
  need(stored);
  const topic0 = contract.interface.getEvent("Stored").topicHash;
  const from = ethers.zeroPadValue(wallet.address, 32);
  const v42 = ethers.toBeHex(42n, 32);
  const v99 = ethers.toBeHex(99n, 32);
  let logs = await http.getLogs({ address, fromBlock: deployBlock, topics: [topic0, null, [v99, v42]] });
  assert.equal(logs.length, 1);
  assert.equal(logs[0].topics[2], v42);
  logs = await http.getLogs({ address: [address, ethers.ZeroAddress], fromBlock: deployBlock, topics: [topic0, from] });
  assert.equal(logs.length, 2);
  logs = await http.getLogs({ blockHash: receipts[0].blockHash, topics: [topic0] });
  assert.equal(logs.length, 1);
  assert.equal(logs[0].removed, false);
  logs = await http.getLogs({ address: ethers.ZeroAddress, fromBlock: deployBlock });
  assert.equal(logs.length, 0);
});

await step("getLogs: a range over --rpc-max-logs-range is refused", async () => {
  await assert.rejects(http.send("eth_getLogs", [{ fromBlock: "0x0", toBlock: "0x1000000" }]), (e) => {
    assert.equal(e.error?.code ?? e.info?.error?.code, -32005);
    return true;
  });
});

await step("polling filters: eth_getFilterChanges and eth_getFilterLogs", async () => {
  need(listening, stored);
  const changes = await http.send("eth_getFilterChanges", [pollingFilter]);
  assert.equal(changes.length, 2);
  assert.deepEqual(changes.map((l) => BigInt(l.topics[2])), values);
  assert.deepEqual(await http.send("eth_getFilterChanges", [pollingFilter]), []);
  const all = await http.send("eth_getFilterLogs", [pollingFilter]);
  assert.deepEqual(all.map((l) => l.transactionHash), receipts.map((r) => r.hash));
  const blocks = await http.send("eth_getFilterChanges", [blockFilter]);
  assert.ok(blocks.includes(receipts[0].blockHash) && blocks.includes(receipts[1].blockHash));
  await assert.rejects(http.send("eth_getFilterLogs", [blockFilter]), /Logs filter not found/);
  assert.equal(await http.send("eth_uninstallFilter", [pollingFilter]), true);
  await assert.rejects(http.send("eth_getFilterChanges", [pollingFilter]), /Filter not found/);
});

await step("contract.on over HTTP (ethers' filter polling) saw both events", async () => {
  need(listening, stored);
  await within(30000, "polled events", (async () => { while (polled.length < 2) await new Promise((r) => setTimeout(r, 100)); })());
  assert.deepEqual(polled.map((e) => e.value), values);
});

await step("contract.on over WebSocket (eth_subscribe logs) saw both events", async () => {
  need(listening, stored);
  await within(30000, "pushed events", (async () => { while (pushed.length < 2) await new Promise((r) => setTimeout(r, 100)); })());
  assert.deepEqual(pushed.map((e) => e.value), values);
  assert.equal(pushed[1].ev.log.transactionHash, receipts[1].hash);
});

await step("newHeads over WebSocket", async () => {
  need(listening);
  await within(30000, "new heads", (async () => { while (heads.length < 1) await new Promise((r) => setTimeout(r, 100)); })());
  const latest = await http.getBlockNumber();
  assert.ok(heads.every((n) => n <= latest + 1));
});

// basalt-signer holds SIGNER_KEY; everything but signing is proxied to the
// node.
const viaSigner = new ethers.JsonRpcProvider(SIGNER, undefined, { pollingInterval: 250, cacheTimeout: -1 });
let jsonRpcSigner;
await step("getSigner(): eth_accounts through the signer lists its key", async () => {
  assert.deepEqual(await viaSigner.send("eth_accounts", []), [SIGNER_ADDRESS.toLowerCase()]);
  jsonRpcSigner = await viaSigner.getSigner(SIGNER_ADDRESS);
  assert.equal(jsonRpcSigner.address, SIGNER_ADDRESS);
});

await step("JsonRpcSigner.sendTransaction with no fee fields, mined", async () => {
  need(jsonRpcSigner);
  const before = await http.getBalance(OTHER);
  const tx = await within(60000, "the sent transaction", jsonRpcSigner.sendTransaction({ to: OTHER, value: 777n }));
  assert.equal(tx.from, SIGNER_ADDRESS);
  const r = await mined(tx);
  assert.equal(r.from, SIGNER_ADDRESS);
  assert.equal(r.to, OTHER);
  assert.equal(await http.getBalance(OTHER, r.blockNumber), before + 777n);
});

await step("contract call through JsonRpcSigner (no fee fields), mined", async () => {
  need(jsonRpcSigner, contract);
  const viaContract = new ethers.Contract(address, abi, jsonRpcSigner);
  const r2 = await mined(await viaContract.store(5n, "from the signer"));
  assert.equal(r2.logs.length, 1);
  assert.equal(await contract.value(), 5n);
});

await step("JsonRpcSigner.signMessage (personal_sign) verified with ethers.verifyMessage", async () => {
  need(jsonRpcSigner);
  const local = new ethers.Wallet(SIGNER_KEY);
  for (const message of [...messages, ethers.getBytes(rawMessage)]) {
    const sig = await jsonRpcSigner.signMessage(message);
    assert.equal(ethers.verifyMessage(message, sig), SIGNER_ADDRESS);
    assert.equal(sig, await local.signMessage(message)); // RFC 6979: the very same bytes
  }
});

await step("JsonRpcSigner.signTypedData (eth_signTypedData_v4) verified with ethers.verifyTypedData", async () => {
  need(jsonRpcSigner);
  const local = new ethers.Wallet(SIGNER_KEY);
  const { domain, types, message } = typedData;
  const sig = await jsonRpcSigner.signTypedData(domain, types, message);
  assert.equal(ethers.verifyTypedData(domain, types, message, sig), SIGNER_ADDRESS);
  assert.equal(sig, await local.signTypedData(domain, types, message));
  // A smaller domain (no version, no verifyingContract).
  const small = { Note: [{ name: "text", type: "string" }] };
  const sig2 = await jsonRpcSigner.signTypedData({ name: "n", chainId: 1337 }, small, { text: "hi" });
  assert.equal(ethers.verifyTypedData({ name: "n", chainId: 1337 }, small, { text: "hi" }, sig2), SIGNER_ADDRESS);
});
viaSigner.destroy();

await contract?.removeAllListeners();
await wsContract?.removeAllListeners();
await ws.removeAllListeners();
ws.destroy();
http.destroy();

done();
