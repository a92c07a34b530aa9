// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.0;

// The private contract of the web3js-quorum suite (test.js compiles it with
// npm solc): a stored value with an event, and two calls that fail, one by
// reverting with a reason, one on an invalid opcode.
contract Store {
    uint256 public value;

    event Stored(address indexed by, uint256 value);

    constructor(uint256 initial) {
        value = initial;
    }

    function set(uint256 v) external {
        value = v;
        emit Stored(msg.sender, v);
    }

    function fail() external pure {
        revert("Store: always fails");
    }

    function halt() external pure {
        assembly {
            invalid()
        }
    }
}
