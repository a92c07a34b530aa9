// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.25;

// Greeter is compiled by npm solc with its default settings (the newest
// EVM version solc knows): its code holds PUSH0 (Shanghai) and MCOPY
// (Cancun), so it runs only where those forks are active.
contract Greeter {
    string private greeting;

    constructor(string memory g) {
        greeting = g;
    }

    // greet joins the greeting and name in memory (string.concat copies
    // memory with MCOPY).
    function greet(string memory name) external view returns (string memory) {
        return string.concat(greeting, ", ", name);
    }

    function set(string calldata g) external {
        greeting = g;
    }
}
