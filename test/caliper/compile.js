'use strict';
// Compiles simple.sol into the contract file Caliper's ethereum connector
// deploys ({name, abi, bytecode, gas}), written to the path given.
// evmVersion berlin: the same bytecode runs on every network `network up`
// makes and on GoQuorum 24.4.1, whose networks stop at Berlin rules.
const fs = require('fs');
const path = require('path');
const solc = require('solc');

const source = fs.readFileSync(path.join(__dirname, 'simple.sol'), 'utf8');
const input = {
    language: 'Solidity',
    sources: { 'simple.sol': { content: source } },
    settings: {
        evmVersion: 'berlin',
        optimizer: { enabled: true, runs: 200 },
        outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
    },
};
const out = JSON.parse(solc.compile(JSON.stringify(input)));
const errors = (out.errors || []).filter(e => e.severity === 'error');
if (errors.length > 0) {
    console.error(errors.map(e => e.formattedMessage).join('\n'));
    process.exit(1);
}
const c = out.contracts['simple.sol'].simple;
fs.writeFileSync(process.argv[2], JSON.stringify({
    name: 'simple',
    abi: c.abi,
    bytecode: '0x' + c.evm.bytecode.object,
    gas: 3000000,
}));
