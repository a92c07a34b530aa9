'use strict';
// Runs Caliper's simple workload (rounds open, query, transfer) against one
// Ethereum JSON-RPC WebSocket endpoint and prints each round's figures as a
// JSON line: {"round":…,"succ":…,"fail":…,"sendTPS":…,"maxLatency":…,
// "avgLatency":…,"throughputTPS":…}.
//
//   node run.js --url ws://127.0.0.1:8546 --workers 1 --txs 200 --tps 100 --out DIR
//
// Options: --url (WebSocket endpoint), --workers, --txs (transactions per
// round), --tps (fixed rate, the whole run's), --chain-id, --deployer and
// --deployer-key (the funded account that deploys the contract; Besu's dev
// account by default), --out (a work directory: configs, report, logs).
// Each worker sends from its own account, derived from a seed
// (fromAddressSeed), at gas price 0.
const fs = require('fs');
const path = require('path');
const { spawn } = require('child_process');

function options(argv) {
    const o = {
        workers: 1, txs: 200, tps: 100, chainId: 1337,
        deployer: '0xfe3b557e8fb62b89f4916b721be55ceb828dbd73',
        deployerKey: '0x8f2a55949038a9610f50fb23b5883af3b4ecb3c3bb792cbcefbd1542c692be63',
    };
    for (let i = 2; i < argv.length; i += 2) {
        const key = argv[i].replace(/^--/, '').replace(/-(\w)/g, (_, c) => c.toUpperCase());
        if (!(key in o) && !['url', 'out'].includes(key)) {
            throw new Error(`unknown option ${argv[i]}`);
        }
        o[key] = argv[i + 1];
    }
    if (!o.url || !o.out) {
        throw new Error('--url and --out are required');
    }
    for (const k of ['workers', 'txs', 'tps', 'chainId']) {
        o[k] = Number(o[k]);
    }
    return o;
}

function benchConfig(o) {
    const perWorker = Math.ceil(o.txs / o.workers);
    const round = (label, module) => [
        `    - label: ${label}`,
        `      txNumber: ${o.txs}`,
        `      rateControl: { type: fixed-rate, opts: { tps: ${o.tps} } }`,
        `      workload:`,
        `        module: ${path.join(__dirname, 'workload', module)}`,
        `        arguments: { accounts: ${perWorker}, money: 10000 }`,
    ].join('\n');
    return [
        'test:',
        '  name: simple',
        '  workers:',
        '    type: local',
        `    number: ${o.workers}`,
        '  rounds:',
        round('open', 'open.js'),
        round('query', 'query.js'),
        round('transfer', 'transfer.js'),
        '',
    ].join('\n');
}

function networkConfig(o, contractFile) {
    return {
        caliper: { blockchain: 'ethereum' },
        ethereum: {
            url: o.url,
            contractDeployerAddress: o.deployer,
            contractDeployerAddressPrivateKey: o.deployerKey,
            fromAddressSeed: '0x6a8f1d36e3c9b5a4e2f7d0c8b1a394e5f6d7c8b9a0e1f2d3c4b5a69788796a5b',
            transactionConfirmationBlocks: 2,
            chainId: o.chainId,
            gasPrice: 0,
            contracts: {
                simple: { path: contractFile, gas: { open: 100000, query: 100000, transfer: 100000 } },
            },
        },
    };
}

// rounds reads Caliper's summary table from its output: the last row of
// each round.
function rounds(output) {
    const out = {};
    const row = /^\|\s*(open|query|transfer)\s*\|\s*(\d+)\s*\|\s*(\d+)\s*\|\s*([\d.]+)\s*\|\s*([-\d.]+)\s*\|\s*([-\d.]+)\s*\|\s*([-\d.]+)\s*\|\s*([\d.]+)\s*\|/;
    for (const line of output.split('\n')) {
        const m = row.exec(line.trim());
        if (m) {
            out[m[1]] = {
                round: m[1], succ: Number(m[2]), fail: Number(m[3]), sendTPS: Number(m[4]),
                maxLatency: Number(m[5]), avgLatency: Number(m[7]), throughputTPS: Number(m[8]),
            };
        }
    }
    return ['open', 'query', 'transfer'].map(r => out[r]).filter(Boolean);
}

async function main() {
    const o = options(process.argv);
    fs.mkdirSync(o.out, { recursive: true });
    const contractFile = path.join(o.out, 'simple.json');
    require('child_process').execFileSync(process.execPath, [path.join(__dirname, 'compile.js'), contractFile], { stdio: 'inherit' });
    const netFile = path.join(o.out, 'network.json');
    const benchFile = path.join(o.out, 'bench.yaml');
    fs.writeFileSync(netFile, JSON.stringify(networkConfig(o, contractFile), null, 2));
    fs.writeFileSync(benchFile, benchConfig(o));

    const cli = path.join(__dirname, 'node_modules', '@hyperledger', 'caliper-cli', 'caliper.js');
    const args = [cli, 'launch', 'manager',
        '--caliper-workspace', o.out,
        '--caliper-networkconfig', netFile,
        '--caliper-benchconfig', benchFile,
        '--caliper-report-path', path.join(o.out, 'report.html'),
        '--caliper-logging-targets-console-enabled', 'true',
        '--caliper-logging-targets-file-enabled', 'false',
    ];
    const log = fs.createWriteStream(path.join(o.out, 'caliper.log'));
    let output = '';
    const code = await new Promise((resolve) => {
        // Its own process group: Caliper's workers (forked by the
        // manager) keep their web3 WebSocket open and do not exit once the
        // benchmark is over, nor then does the manager; the group is ended
        // once the manager has reported the end.
        const p = spawn(process.execPath, args, { cwd: o.out, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
        let ending = null;
        // Stopped from outside (a test's timeout): take Caliper along.
        process.on('SIGTERM', () => {
            try { process.kill(-p.pid, 'SIGKILL'); } catch (e) { /* gone */ }
            process.exit(1);
        });
        const take = (d) => {
            output += d;
            log.write(d);
            if (!ending && /Benchmark finished in|Benchmark failed/.test(output)) {
                ending = setTimeout(() => { try { process.kill(-p.pid, 'SIGTERM'); } catch (e) { /* gone */ } }, 3000);
            }
        };
        p.stdout.on('data', take);
        p.stderr.on('data', take);
        p.on('close', (code, signal) => {
            clearTimeout(ending);
            // Ended by us after the end was reported: the run is complete.
            resolve(ending && signal === 'SIGTERM' ? 0 : code);
        });
    });
    log.end();
    const rs = rounds(output);
    for (const r of rs) {
        console.log(JSON.stringify(r));
    }
    if (code !== 0 || rs.length !== 3) {
        console.error(`caliper exited with ${code}, ${rs.length} of 3 rounds reported; see ${path.join(o.out, 'caliper.log')}`);
        process.exit(1);
    }
}

main().catch((e) => { console.error(e); process.exit(1); });
