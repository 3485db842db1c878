/**
 * `npm run bench`: runs the benchmarks in order, prints one table with every figure and its method,
 * and writes it as JSON under bench/results/. `npm run bench -- signing client` runs only those;
 * `npm run bench -- --quick` (or BENCH_QUICK=1) runs small sizes for development; `npm run bench --
 * journeys --cluster` runs the journeys on the cluster profile (a Temporal server on PostgreSQL).
 * `npm run bench -- chaos` (the long chaos run, always on the cluster profile) runs only when named.
 */
import { WorkflowFailedError } from '@temporalio/client';
import { endLine, workflowEndOf } from '../client/workflow-end';
import { benchBurst } from './burst';
import { benchChaos } from './chaos';
import { benchClientOverhead } from './client-overhead';
import { benchCodec } from './codec';
import { benchCost } from './cost';
import { benchJourneys } from './journeys';
import { benchLifetime } from './lifetime';
import { benchMemory } from './memory';
import type { BenchOptions } from './options';
import { benchPartnerEvents } from './partner-events';
import { benchPollingCost } from './polling-cost';
import { benchReceiver } from './receiver';
import { benchRate } from './rate';
import { benchRecovery } from './recovery';
import { machine, printTable, saveResults, type Figure } from './report';
import { benchSigning } from './signing';

const BENCHMARKS: Record<string, (options: BenchOptions) => Promise<Figure[]>> = {
  signing: async () => benchSigning(),
  client: () => benchClientOverhead(),
  codec: () => benchCodec(),
  receiver: (options) => benchReceiver(options),
  polling: (options) => benchPollingCost(options),
  journeys: (options) => benchJourneys(options),
  lifetime: (options) => benchLifetime(options),
  cost: (options) => benchCost(options),
  recovery: (options) => benchRecovery(options),
  'partner-events': (options) => benchPartnerEvents(options),
  memory: (options) => benchMemory(options),
  rate: (options) => benchRate(options),
  burst: (options) => benchBurst(options),
  chaos: (options) => benchChaos(options),
};
/** Left out of the whole table: run only when named (the chaos run's default is 30 minutes of play). */
const ONLY_WHEN_NAMED = new Set(['chaos']);

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const quick = args.includes('--quick') || process.env.BENCH_QUICK === '1';
  const cluster = args.includes('--cluster');
  const chosen = args.filter((arg) => arg !== '--quick' && arg !== '--cluster');
  const unknown = chosen.filter((name) => !(name in BENCHMARKS));
  if (unknown.length > 0)
    throw new Error(`unknown benchmark ${unknown.join(', ')}; choose from ${Object.keys(BENCHMARKS).join(', ')}`);
  const names = chosen.length > 0 ? chosen : Object.keys(BENCHMARKS).filter((name) => !ONLY_WHEN_NAMED.has(name));
  // The chaos row is on the cluster profile whether or not --cluster is given.
  if (cluster && names.some((name) => !['journeys', 'burst', 'chaos'].includes(name)))
    throw new Error('--cluster applies to the journeys and burst benchmarks only: npm run bench -- journeys --cluster');
  const options: BenchOptions = { quick, cluster, progress: (line) => process.stdout.write(`[bench]   ${line}\n`) };
  const figures: Figure[] = [];
  process.stdout.write(
    `[bench] ${machine()}${quick ? ' (quick mode: rough figures)' : ''}${cluster ? ' (cluster profile: Temporal server on PostgreSQL)' : ''}\n`,
  );
  for (const name of names) {
    const started = Date.now();
    process.stdout.write(`[bench] ${name} ...\n`);
    figures.push(...(await BENCHMARKS[name]!(options)));
    process.stdout.write(`[bench] ${name} done in ${Math.round((Date.now() - started) / 1000)} s\n`);
  }
  process.stdout.write(`\n${printTable(figures)}\n\n[bench] results written to ${saveResults(figures)}\n`);
}

main().catch((error: unknown) => {
  // A benchmark's workflow that did not complete: how it ended, decoded, rather than "Workflow execution failed".
  const message =
    error instanceof WorkflowFailedError
      ? endLine('a workflow', workflowEndOf(error))
      : error instanceof Error
        ? error.message
        : String(error);
  process.stderr.write(`[bench] ${message}\n`);
  process.exitCode = 1;
});
