// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

// Events is the contract the ethers.js test deploys: store() keeps a value
// and emits Stored, which the test reads with getLogs, a polling filter and
// a WebSocket subscription.
contract Events {
    event Stored(address indexed from, uint256 indexed value, string note);

    uint256 public value;

    function store(uint256 v, string calldata note) external {
        value = v;
        emit Stored(msg.sender, v, note);
    }
}
