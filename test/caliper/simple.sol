// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.0;

// The contract of Caliper's "simple" workload: named accounts holding an
// integer balance, opened, queried and transferred between.
contract simple {
    mapping(string => int256) private balances;

    function open(string memory account, int256 amount) public {
        balances[account] = amount;
    }

    function query(string memory account) public view returns (int256) {
        return balances[account];
    }

    function transfer(string memory from, string memory to, int256 amount) public {
        balances[from] -= amount;
        balances[to] += amount;
    }
}
