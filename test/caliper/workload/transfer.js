'use strict';
// transfer: moves an amount between two of the worker's accounts.
const SimpleWorkload = require('./accounts');

class Transfer extends SimpleWorkload {
    async submitTransaction() {
        const from = this.randomAccount();
        let to = this.randomAccount();
        if (this.accounts > 1) {
            while (to === from) {
                to = this.randomAccount();
            }
        }
        return this.request('transfer', [from, to, Number(this.roundArguments.money || 1)], false);
    }
}

module.exports.createWorkloadModule = () => new Transfer();
