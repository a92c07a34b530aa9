import { readFileSync } from "node:fs";
import { JsonRpcProvider } from "ethers";

const net = JSON.parse(readFileSync("basalt-network/network.json", "utf8"));
const signer = new JsonRpcProvider(net.signerUrl);   // basalt-signer, in front of node1
const dev = await signer.getSigner(net.devAddress);   // the key the signer holds

// A public transfer, signed by basalt-signer.
const tx = await dev.sendTransaction({ to: net.nodes[3].address, value: 1000n });
console.log("transfer mined in block", (await tx.wait()).blockNumber);

// A private contract for node1 and node2 (called without data it returns its
// slot 0; called with a word it stores it).
const STORE = "0x602280600b6000396000f336600f5760005460005260206000f35b60003580600055600052602a60206000a100";
const [a, b] = net.nodes.map((n) => n.privacyPublicKey);
const send = (fields) => signer.send("eea_sendTransaction", [{ from: net.devAddress, gas: "0x100000",
  privateFrom: a, privateFor: [b], restriction: "restricted", ...fields }]);
const node2 = new JsonRpcProvider(net.nodes[1].http);
const receipt = async (pmt) => {
  for (;;) {
    const r = await node2.send("priv_getTransactionReceipt", [pmt]);
    if (r) return r;
    await new Promise((ok) => setTimeout(ok, 500));
  }
};
const deployed = await receipt(await send({ data: STORE }));
await receipt(await send({ to: deployed.contractAddress, data: "0x" + (42).toString(16).padStart(64, "0") }));
for (const n of net.nodes.slice(0, 3)) {
  const p = new JsonRpcProvider(n.http);
  console.log(n.name, await p.send("priv_call", [deployed.privacyGroupId, { to: deployed.contractAddress }, "latest"]));
}
// node1 0x…2a, node2 0x…2a, node3 0x (not a member)
