import { runApiBench } from './api.js';

const only = process.argv[2];

if (!only || only === 'api') {
  const results = await runApiBench();
  console.log('\nAPI throughput (autocannon, 50 connections, median of interleaved rounds)');
  console.table(results);
  console.log(JSON.stringify({ api: results }));
}
