import { runApiBench } from './api.js';
import { printGatewayBench, runGatewayBench } from './gateway.js';
import { printRuntimeBench, runRuntimeBench } from './runtime.js';
import { printScannerBench, runScannerBench } from './scanner.js';

/** `npm run bench [api|scanner|gateway|runtime]`: all benchmarks, or one. */
const only = process.argv[2];

if (!only || only === 'api') {
  const results = await runApiBench();
  console.log('\nAPI throughput (autocannon, 50 connections, median of interleaved rounds)');
  console.table(results);
  console.log(JSON.stringify({ api: results }));
}

if (!only || only === 'scanner') {
  printScannerBench(await runScannerBench());
}

if (!only || only === 'gateway') {
  printGatewayBench(await runGatewayBench());
}

if (!only || only === 'runtime') {
  printRuntimeBench(await runRuntimeBench());
}
