// Compiles ValidatorSet.sol with the solc npm package that test/ethers
// installs (`npm ci` there) and prints its ABI, runtime bytecode and
// storage layout as JSON for contract_test.go.
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";

const require = createRequire(new URL("../ethers/package.json", import.meta.url));
const solc = require("solc");

const input = {
  language: "Solidity",
  sources: { "ValidatorSet.sol": { content: readFileSync(new URL("./ValidatorSet.sol", import.meta.url), "utf8") } },
  settings: {
    evmVersion: "berlin",
    outputSelection: { "*": { "*": ["abi", "evm.deployedBytecode.object", "storageLayout"] } },
  },
};
const out = JSON.parse(solc.compile(JSON.stringify(input)));
const errors = (out.errors || []).filter((e) => e.severity === "error");
if (errors.length) {
  console.error(errors.map((e) => e.formattedMessage).join("\n"));
  process.exit(1);
}
const c = out.contracts["ValidatorSet.sol"].ValidatorSet;
console.log(JSON.stringify({
  version: solc.version(),
  abi: c.abi,
  runtime: "0x" + c.evm.deployedBytecode.object,
  storage: c.storageLayout.storage.map((s) => ({ label: s.label, slot: s.slot })),
}));
