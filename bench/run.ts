/**
 * `npm run bench`: runs the benchmarks in order, prints one table with every figure and its method,
 * and writes it as JSON under bench/results/. `npm run bench -- signing client` runs only those.
 */
import { benchClientOverhead } from './client-overhead';
import { machine, printTable, saveResults, type Figure } from './report';
import { benchSigning } from './signing';

const BENCHMARKS: Record<string, () => Promise<Figure[]>> = {
  signing: async () => benchSigning(),
  client: () => benchClientOverhead(),
};

async function main(): Promise<void> {
  const chosen = process.argv.slice(2);
  const unknown = chosen.filter((name) => !(name in BENCHMARKS));
  if (unknown.length > 0) throw new Error(`unknown benchmark ${unknown.join(', ')}; choose from ${Object.keys(BENCHMARKS).join(', ')}`);
  const names = chosen.length > 0 ? chosen : Object.keys(BENCHMARKS);
  const figures: Figure[] = [];
  process.stdout.write(`[bench] ${machine()}\n`);
  for (const name of names) {
    const started = Date.now();
    process.stdout.write(`[bench] ${name} ...\n`);
    figures.push(...(await BENCHMARKS[name]!()));
    process.stdout.write(`[bench] ${name} done in ${Math.round((Date.now() - started) / 1000)} s\n`);
  }
  process.stdout.write(`\n${printTable(figures)}\n\n[bench] results written to ${saveResults(figures)}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`[bench] ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
