'use strict';
// query: a read-only call of query() on one of the worker's accounts.
const SimpleWorkload = require('./accounts');

class Query extends SimpleWorkload {
    async submitTransaction() {
        return this.request('query', [this.randomAccount()], true);
    }
}

module.exports.createWorkloadModule = () => new Query();
