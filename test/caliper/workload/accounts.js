'use strict';
// The accounts of the simple workload: each worker opens its own,
// named after the worker, so that the query and transfer rounds of a
// worker find the accounts its open round made. roundArguments.accounts is
// how many accounts a worker opens (its share of the open round).
const { WorkloadModuleBase } = require('@hyperledger/caliper-core');

class SimpleWorkload extends WorkloadModuleBase {
    async initializeWorkloadModule(workerIndex, totalWorkers, roundIndex, roundArguments, sutAdapter, sutContext) {
        await super.initializeWorkloadModule(workerIndex, totalWorkers, roundIndex, roundArguments, sutAdapter, sutContext);
        this.accounts = Number(roundArguments.accounts);
        if (!(this.accounts > 0)) {
            throw new Error('the round needs arguments.accounts > 0');
        }
        this.next = 0;
    }

    // account returns the name of this worker's i-th account.
    account(i) {
        return `w${this.workerIndex}_${i % this.accounts}`;
    }

    // randomAccount returns one of this worker's accounts.
    randomAccount() {
        return this.account(Math.floor(Math.random() * this.accounts));
    }

    request(verb, args, readOnly) {
        return this.sutAdapter.sendRequests({ contract: 'simple', verb, args, readOnly });
    }
}

module.exports = SimpleWorkload;
