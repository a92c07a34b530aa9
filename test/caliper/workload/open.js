'use strict';
// open: each transaction opens the worker's next account with a balance.
const SimpleWorkload = require('./accounts');

class Open extends SimpleWorkload {
    async submitTransaction() {
        const account = this.account(this.next++);
        return this.request('open', [account, Number(this.roundArguments.money || 10000)], false);
    }
}

module.exports.createWorkloadModule = () => new Open();
