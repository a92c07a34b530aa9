// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.0;

// ValidatorSet is a minimal validator contract for QBFT contract validator
// selection: nodes read getValidators() at each block's parent state. The
// initial list is written into the genesis alloc (storage of `validators`
// and `isValidator`); a current validator adds another with addValidator
// and removes one with removeValidator (never the last).
contract ValidatorSet {
    address[] private validators;
    mapping(address => bool) private isValidator;

    event ValidatorAdded(address indexed validator, address indexed addedBy);
    event ValidatorRemoved(address indexed validator, address indexed removedBy);

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

    function removeValidator(address validator) external {
        require(isValidator[msg.sender], "sender is not a validator");
        require(isValidator[validator], "not a validator");
        require(validators.length > 1, "the last validator stays");
        isValidator[validator] = false;
        for (uint256 i = 0; i < validators.length; i++) {
            if (validators[i] == validator) {
                validators[i] = validators[validators.length - 1];
                validators.pop();
                break;
            }
        }
        emit ValidatorRemoved(validator, msg.sender);
    }
}
