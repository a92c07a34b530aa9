// ethers.js v6 against a running basalt dev node (see ethers_test.go, which
// starts the node and runs this script with BASALT_HTTP and BASALT_WS set).
// It compiles Events.sol with solc, deploys it, calls it with type-2
// transactions and reads the Stored events four ways: eth_getLogs, a
// polling filter (eth_newFilter + eth_getFilterChanges, what ethers uses
// for contract.on over HTTP), a WebSocket logs subscription, and newHeads.
import { readFileSync } from "node:fs";
import assert from "node:assert/strict";
import solc from "solc";
import { ethers } from "ethers";

const HTTP = process.env.BASALT_HTTP;
const WS = process.env.BASALT_WS;
if (!HTTP || !WS) throw new Error("set BASALT_HTTP and BASALT_WS");
// The dev network's first funded account (README).
const KEY = "0x8f2a55949038a9610f50fb23b5883af3b4ecb3c3bb792cbcefbd1542c692be63";

let passed = 0, failed = 0;
async function step(name, fn) {
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

function within(ms, what, promise) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

function compile() {
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

// Fees for an explicit type-2 transaction: the dev network's base fee is 0,
// so ethers would otherwise choose a legacy transaction.
const fees = { type: 2, maxFeePerGas: ethers.parseUnits("2", "gwei"), maxPriorityFeePerGas: ethers.parseUnits("1", "gwei") };

const http = new ethers.JsonRpcProvider(HTTP, undefined, { pollingInterval: 250 });
const ws = new ethers.WebSocketProvider(WS);
const wallet = new ethers.Wallet(KEY, http);

let abi, bytecode, contract, address, deployBlock;

await step("compile Events.sol with solc " + solc.version(), async () => {
  ({ abi, bytecode } = compile());
  assert.ok(bytecode.length > 100);
});

await step("network over HTTP and WebSocket", async () => {
  assert.equal((await http.getNetwork()).chainId, 1337n);
  assert.equal((await ws.getNetwork()).chainId, 1337n);
});

await step("deploy (type-2 transaction, wait for the receipt)", async () => {
  const factory = new ethers.ContractFactory(abi, bytecode, wallet);
  contract = await factory.deploy(fees);
  const receipt = await within(60000, "the deployment receipt", contract.deploymentTransaction().wait());
  assert.equal(receipt.status, 1);
  assert.equal(receipt.type, 2);
  address = await contract.getAddress();
  assert.equal(receipt.contractAddress, address);
  deployBlock = receipt.blockNumber;
  assert.notEqual(await http.getCode(address), "0x");
});

// Listeners first, then the transactions that should reach them.
const polled = [], pushed = [], heads = [];
let pollingFilter, blockFilter, wsContract;
await step("install a polling filter and WebSocket subscriptions", async () => {
  await contract.on("Stored", (from, value, note, ev) => polled.push({ value, note, ev }));
  wsContract = new ethers.Contract(address, abi, ws);
  await wsContract.on("Stored", (from, value, note, ev) => pushed.push({ value, note, ev }));
  await ws.on("block", (n) => heads.push(n));
  // A raw filter too, polled by hand below.
  pollingFilter = await http.send("eth_newFilter", [{ address, fromBlock: ethers.toQuantity(deployBlock), topics: [contract.interface.getEvent("Stored").topicHash] }]);
  assert.match(pollingFilter, /^0x[0-9a-f]+$/);
  blockFilter = await http.send("eth_newBlockFilter", []);
});

const values = [7n, 42n];
const receipts = [];
await step("call store() twice (type-2 transactions, wait for receipts)", async () => {
  for (const v of values) {
    const tx = await contract.store(v, `note ${v}`, fees);
    assert.equal(tx.type, 2);
    const r = await within(60000, "a receipt", tx.wait());
    assert.equal(r.status, 1);
    assert.equal(r.type, 2);
    assert.equal(r.logs.length, 1);
    receipts.push(r);
  }
  assert.equal(await contract.value(), 42n);
});

await step("getLogs: queryFilter by address and event", async () => {
  const events = await contract.queryFilter("Stored", deployBlock, "latest");
  assert.deepEqual(events.map((e) => e.args.value), values);
  assert.deepEqual(events.map((e) => e.args.note), values.map((v) => `note ${v}`));
  assert.equal(events[0].transactionHash, receipts[0].hash);
  assert.equal(events[1].blockHash, receipts[1].blockHash);
});

await step("getLogs: topic OR-list, null position, block hash", async () => {
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
  await within(30000, "polled events", (async () => { while (polled.length < 2) await new Promise((r) => setTimeout(r, 100)); })());
  assert.deepEqual(polled.map((e) => e.value), values);
});

await step("contract.on over WebSocket (eth_subscribe logs) saw both events", async () => {
  await within(30000, "pushed events", (async () => { while (pushed.length < 2) await new Promise((r) => setTimeout(r, 100)); })());
  assert.deepEqual(pushed.map((e) => e.value), values);
  assert.equal(pushed[1].ev.log.transactionHash, receipts[1].hash);
});

await step("newHeads over WebSocket", async () => {
  await within(30000, "new heads", (async () => { while (heads.length < 1) await new Promise((r) => setTimeout(r, 100)); })());
  const latest = await http.getBlockNumber();
  assert.ok(heads.every((n) => n <= latest + 1));
});

await contract.removeAllListeners();
await wsContract.removeAllListeners();
await ws.removeAllListeners();
ws.destroy();
http.destroy();

console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
