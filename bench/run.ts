import { runApiBench } from './api.js';
import { runJobsBench } from './jobs.js';
import { printMonitorsBench, runMonitorsBench } from './monitors.js';
import { printScansBench, runScansBench } from './scans.js';
import { printGatewayBench, runGatewayBench } from './gateway.js';
import { printRuntimeBench, runRuntimeBench } from './runtime.js';
import { printEmbeddedBench, runEmbeddedBench } from './embedded.js';
import { printScaleBench, runScaleBench } from './scale.js';
import { printIdleBench, runIdleBench } from './idle.js';
import { printSgtmBench, runSgtmBench } from './sgtm.js';
import { printPeerBench, runPeerBench } from './peer.js';
import { printScannerBench, runScannerBench } from './scanner.js';
import { printScannerAccuracy, runScannerAccuracy } from './scanner-accuracy.js';
import { printScannerCorpusBench, runScannerCorpusBench } from './scanner-corpus.js';
import { printPagespeedBench, runPagespeedBench } from './scanner-pagespeed.js';
import { printStartBench, runStartBench } from './start.js';
import { printTrackingMonitorsBench, runTrackingMonitorsBench } from './tracking-monitors.js';
import { printFleetBench, runFleetBench } from './fleet.js';
import { printNginxRoutingBench, runNginxRoutingBench } from './nginx-routing.js';

/**
 * `npm run bench [api|scanner|gateway|runtime|jobs|monitors|scans|scale|embedded|peer|sgtm|start|tracking-monitors|fleet|idle|nginx-routing]`:
 * all benchmarks, or one (`scale`, `embedded`, `peer`, `sgtm`, `start`, `tracking-monitors`, `fleet`, `idle` and `nginx-routing` only when asked). The scanner benchmark has two parts, speed and accuracy; BENCH_SCANNER=speed or accuracy runs one,
 * BENCH_SCANNER=pagespeed runs the pagespeed benchmark instead (every fixture page with a Lighthouse score), and
 * BENCH_SCANNER=corpus the scan speed over every fixture page (BENCH_SCANNER_BASELINE=<checkout> for a before/after).
 */
const only = process.argv[2];

if (!only || only === 'api') {
  const results = await runApiBench();
  console.log('\nAPI throughput (autocannon, 50 connections, median of interleaved rounds)');
  console.table(results);
  console.log(JSON.stringify({ api: results }));
}

if (!only || only === 'scanner') {
  const part = process.env.BENCH_SCANNER;
  if (!part || part === 'speed') printScannerBench(await runScannerBench());
  if (!part || part === 'accuracy') printScannerAccuracy(await runScannerAccuracy());
  if (part === 'pagespeed') printPagespeedBench(await runPagespeedBench());
  if (part === 'corpus') printScannerCorpusBench(await runScannerCorpusBench());
}

if (!only || only === 'gateway') {
  printGatewayBench(await runGatewayBench());
}

if (!only || only === 'runtime') {
  printRuntimeBench(await runRuntimeBench());
}

if (only === 'jobs' || (!only && (process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL))) {
  const results = await runJobsBench();
  console.log('\nJob engine (pg-boss on PostgreSQL, one worker: 4 slots, batches of 10)');
  console.table([results]);
  console.log(JSON.stringify({ jobs: results }));
}

if (only === 'monitors' || (!only && (process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL))) {
  printMonitorsBench(await runMonitorsBench());
}

if (only === 'scans' || (!only && (process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL))) {
  printScansBench(await runScansBench());
}

if (only === 'tracking-monitors') {
  printTrackingMonitorsBench(await runTrackingMonitorsBench());
}

if (only === 'embedded') {
  printEmbeddedBench(await runEmbeddedBench());
}

if (only === 'scale') {
  printScaleBench(await runScaleBench());
}

if (only === 'peer') {
  printPeerBench(await runPeerBench());
}

if (only === 'sgtm') {
  printSgtmBench(await runSgtmBench());
}

if (only === 'start') {
  printStartBench(await runStartBench());
}

if (only === 'fleet') printFleetBench(await runFleetBench());

if (only === 'idle') printIdleBench(await runIdleBench());
if (only === 'nginx-routing') printNginxRoutingBench(await runNginxRoutingBench());
