// Compiles Greeter.sol with the pinned npm solc at its default settings
// (no evmVersion: solc's default, the newest it knows) and prints, as JSON,
// solc's version, the EVM version it compiled for, the ABI and the
// creation and runtime bytecode. `npm run --silent compile -- EVM` compiles
// for an older EVM version instead.
import { readFileSync } from "node:fs";
import solc from "solc";

const evmVersion = process.argv[2];
const settings = { outputSelection: { "*": { "*": ["abi", "metadata", "evm.bytecode.object", "evm.deployedBytecode.object"] } } };
if (evmVersion) settings.evmVersion = evmVersion;
const input = {
  language: "Solidity",
  sources: { "Greeter.sol": { content: readFileSync(new URL("./Greeter.sol", import.meta.url), "utf8") } },
  settings,
};
const out = JSON.parse(solc.compile(JSON.stringify(input)));
const errors = (out.errors || []).filter((e) => e.severity === "error");
if (errors.length) {
  console.error(errors.map((e) => e.formattedMessage).join("\n"));
  process.exit(1);
}
const c = out.contracts["Greeter.sol"].Greeter;
console.log(JSON.stringify({
  version: solc.version(),
  evmVersion: JSON.parse(c.metadata).settings.evmVersion,
  abi: c.abi,
  bytecode: "0x" + c.evm.bytecode.object,
  runtime: "0x" + c.evm.deployedBytecode.object,
}));
