// web3js-quorum 22.4.0 with web3 1.x, unmodified, against `basalt network
// up --privacy --signer` (run from the network's directory by
// web3jsquorum_test.go). Each check prints "ok <name>"; any failure exits
// non-zero with the reason.
"use strict";

const assert = require("node:assert/strict");
const fs = require("node:fs");
const path = require("node:path");
const Web3 = require("web3");
const Web3Quorum = require("web3js-quorum");
const solc = require("solc");

const net = JSON.parse(fs.readFileSync("basalt-network/network.json", "utf8"));
const [n1, n2, n3] = net.nodes;
const [a, b, c] = [n1, n2, n3].map((n) => n.privacyPublicKey);
const quorum = (url) => new Web3Quorum(new Web3(url));
const [node1, node2, node3] = [n1, n2, n3].map((n) => quorum(n.http));
// web3js-quorum signs with a hex key without 0x (Buffer.from(key, "hex")).
const privateKey = net.devKey.replace(/^0x/, "");
const sender = net.devAddress.toLowerCase();

const ok = (name) => console.log("ok " + name);
const within = (ms, what, promise) =>
  Promise.race([promise, new Promise((_, fail) => setTimeout(() => fail(new Error(`${what}: nothing after ${ms} ms`)), ms))]);

// Store.sol compiled at solc's defaults (its newest EVM), as a user's
// project is: `network up` runs every fork through Osaka.
function compile() {
  const input = {
    language: "Solidity",
    sources: { "Store.sol": { content: fs.readFileSync(path.join(__dirname, "Store.sol"), "utf8") } },
    settings: { outputSelection: { "*": { "*": ["abi", "evm.bytecode.object"] } } },
  };
  const out = JSON.parse(solc.compile(JSON.stringify(input)));
  for (const e of out.errors || []) {
    if (e.severity === "error") throw new Error(e.formattedMessage);
  }
  const store = out.contracts["Store.sol"].Store;
  return { abi: store.abi, bytecode: "0x" + store.evm.bytecode.object };
}

async function main() {
  const { abi, bytecode } = compile();
  const store = new node1.eth.Contract(abi);
  const call = (name, ...args) => store.methods[name](...args).encodeABI();

  // Privacy groups: create, find, delete.
  const group = await node1.priv.createPrivacyGroup({ addresses: [a, b], name: "web3js", description: "web3js-quorum suite" });
  const scratch = await node1.priv.createPrivacyGroup({ addresses: [a, c], name: "scratch" });
  let found = await node2.priv.findPrivacyGroup([a, b]);
  assert.ok(found.some((g) => g.privacyGroupId === group && g.members.includes(a) && g.members.includes(b)), `findPrivacyGroup: ${JSON.stringify(found)}`);
  assert.equal(await node1.priv.deletePrivacyGroup(scratch), scratch);
  found = await node1.priv.findPrivacyGroup([a, c]);
  assert.ok(!found.some((g) => g.privacyGroupId === scratch), `deleted group still found: ${JSON.stringify(found)}`);
  ok("privacy groups created, found and deleted");

  // generateAndSendRawTransaction: deploy, then call; the library sends the
  // signed private transaction's hex without 0x.
  const send = (fields) => node1.priv.generateAndSendRawTransaction({ privateFrom: a, privacyGroupId: group, privateKey, ...fields });
  const initial = node1.eth.abi.encodeParameter("uint256", 5).slice(2);
  const deployed = await node1.priv.waitForTransactionReceipt(await send({ data: bytecode + initial }));
  assert.equal(deployed.status, "0x1", JSON.stringify(deployed));
  assert.equal(deployed.privacyGroupId, group);
  const contract = deployed.contractAddress;
  assert.match(contract, /^0x[0-9a-f]{40}$/);
  ok("deploy (generateAndSendRawTransaction, waitForTransactionReceipt)");

  const setPMT = await send({ to: contract, data: call("set", 42) });
  const set = await node2.priv.waitForTransactionReceipt(setPMT);
  assert.equal(set.status, "0x1", JSON.stringify(set));
  assert.equal(set.logs.length, 1);
  ok("call (generateAndSendRawTransaction)");

  // priv.call, getCode, getLogs, getTransactionCount, on the other member.
  const read = async (node) => node.eth.abi.decodeParameter("uint256", await node.priv.call(group, { to: contract, data: call("value") }, "latest"));
  assert.equal(await read(node2), "42");
  ok("priv.call");
  const code = await node2.priv.getCode(group, contract, "latest");
  assert.ok(code.length > 2 && code === (await node1.priv.getCode(group, contract, "latest")), `getCode ${code}`);
  ok("priv.getCode");
  const logs = await node2.priv.getLogs(group, { fromBlock: "earliest", toBlock: "latest", address: contract });
  assert.equal(logs.length, 1, JSON.stringify(logs));
  assert.equal(node2.eth.abi.decodeParameter("uint256", logs[0].data), "42");
  assert.equal(logs[0].topics[1], node2.eth.abi.encodeParameter("address", sender));
  ok("priv.getLogs");
  assert.equal(await node2.priv.getTransactionCount(sender, group), 2);
  ok("priv.getTransactionCount");

  // subscribeWithPooling over HTTP (priv_newFilter, priv_getFilterChanges)
  // and over WebSocket (priv_subscribe).
  const polled = await node2.priv.subscribeWithPooling(group, { address: contract }, (err) => {
    if (err) throw err;
  });
  const ws = new Web3Quorum(new Web3(new Web3.providers.WebsocketProvider(n2.ws)));
  const pushed = await ws.priv.subscribeWithPooling(group, { address: contract }, (err) => {
    if (err) throw err;
  });
  const viaPoll = within(60000, "subscribeWithPooling over HTTP", new Promise((done) => polled.on("data", done)));
  const viaPush = within(60000, "subscribeWithPooling over WebSocket", new Promise((done) => pushed.on("data", done)));
  await node1.priv.waitForTransactionReceipt(await send({ to: contract, data: call("set", 7) }));
  const polledLog = await viaPoll;
  assert.equal(node2.eth.abi.decodeParameter("uint256", polledLog.data), "7");
  const pushedLog = (await viaPush).result;
  assert.equal(node2.eth.abi.decodeParameter("uint256", pushedLog.data), "7");
  await polled.unsubscribe();
  await new Promise((done, fail) => pushed.unsubscribe((err) => (err ? fail(err) : done())));
  ws.currentProvider.disconnect();
  ok("subscribeWithPooling (HTTP polling and WebSocket)");

  // generateAndDistributeRawTransaction: the payload goes to the members'
  // managers; a marker the user sends (here through basalt-signer) to the
  // privacy precompile runs it.
  const enclaveKey = await node1.priv.generateAndDistributeRawTransaction({
    privateFrom: a, privateFor: [b], privateKey, data: bytecode + initial });
  assert.match(enclaveKey, /^0x[0-9a-f]{64}$/);
  const signer = new Web3(net.signerUrl);
  const precompile = await node1.priv.getPrivacyPrecompileAddress();
  const marker = await signer.eth.sendTransaction({ from: net.devAddress, to: precompile, data: enclaveKey, gas: 100000 });
  const distributed = await node2.priv.waitForTransactionReceipt(marker.transactionHash);
  assert.equal(distributed.status, "0x1", JSON.stringify(distributed));
  assert.equal(distributed.privateFor.length, 1);
  assert.equal(distributed.privateFor[0], b);
  const other = node2.eth.abi.decodeParameter("uint256", await node2.priv.call(distributed.privacyGroupId, { to: distributed.contractAddress, data: call("value") }, "latest"));
  assert.equal(other, "5");
  ok("generateAndDistributeRawTransaction (marker through basalt-signer)");

  // A non-member holds the public chain and reads nothing private.
  assert.equal(await node3.priv.getTransactionReceipt(setPMT), null);
  assert.equal(await node3.priv.call(group, { to: contract, data: call("value") }, "latest"), "0x");
  assert.equal(await node3.priv.getCode(group, contract, "latest"), "0x");
  assert.deepEqual(await node3.priv.getLogs(group, { fromBlock: "earliest", address: contract }), []);
  assert.notEqual(await node3.eth.getTransactionReceipt(setPMT), null);
  ok("non-member reads nothing");

  // A failing private call says why: priv.call answers the revert's reason;
  // the mined transaction's receipt carries Besu's revertReason (the revert
  // data) and failureReason, and a halt its description.
  await assert.rejects(node2.priv.call(group, { to: contract, data: call("fail") }, "latest"), /Store: always fails/);
  const reverted = await node2.priv.waitForTransactionReceipt(await send({ to: contract, data: call("fail") }));
  assert.equal(reverted.status, "0x0", JSON.stringify(reverted));
  assert.equal(reverted.revertReason.slice(0, 10), "0x08c379a0"); // Error(string)
  assert.equal(node2.eth.abi.decodeParameter("string", "0x" + reverted.revertReason.slice(10)), "Store: always fails");
  assert.equal(reverted.failureReason, "Execution reverted (Store: always fails)");
  ok("failed private transaction: revertReason " + reverted.revertReason.slice(0, 10) + "… (Store: always fails)");
  const halted = await node2.priv.waitForTransactionReceipt(await send({ to: contract, data: call("halt") }));
  assert.equal(halted.status, "0x0", JSON.stringify(halted));
  assert.equal(halted.revertReason, undefined);
  assert.equal(halted.failureReason, "Invalid opcode: 0xfe");
  ok("failed private transaction: failureReason " + halted.failureReason);
  // Failed transactions leave the private nonce as it was (Besu's default).
  assert.equal(await node1.priv.getTransactionCount(sender, group), 3);
  ok("priv.getTransactionCount after failures");
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
