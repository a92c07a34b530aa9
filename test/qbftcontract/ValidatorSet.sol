// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.0;

// ValidatorSet is a minimal validator contract for QBFT contract validator
// selection: nodes read getValidators() at each block's parent state. The
// initial list is written into the genesis alloc (storage of `validators`
// and `isValidator`); a current validator adds another with
// addValidator.
contract ValidatorSet {
    address[] private validators;
    mapping(address => bool) private isValidator;

    event ValidatorAdded(address indexed validator, address indexed addedBy);

    function getValidators() external view returns (address[] memory) {
        return validators;
    }

    function addValidator(address validator) external {
        require(isValidator[msg.sender], "sender is not a validator");
        require(validator != address(0) && !isValidator[validator], "not a new validator");
        isValidator[validator] = true;
        validators.push(validator);
        emit ValidatorAdded(validator, msg.sender);
    }
}
