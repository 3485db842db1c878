/**
 * `rampflow contract`: writes the JSON Schema contract of rampflow's workflows (client/contract.ts),
 * by default to contract/rampflow.contract.json where the repository keeps it; `--out -` prints it.
 * `--check` writes nothing and fails when the file differs from what the code generates (for CI).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { Command } from 'commander';
import { contractText } from '../client/contract';

export const CONTRACT_PATH = join(resolve(__dirname, '..'), 'contract', 'rampflow.contract.json');

function readOrEmpty(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

function writeContract(options: { out: string; check?: boolean }): void {
  const text = contractText();
  if (options.out === '-') {
    process.stdout.write(text);
    return;
  }
  if (options.check) {
    if (readOrEmpty(options.out) !== text)
      throw new Error(`${options.out} is stale: run \`npx rampflow contract\` and commit it`);
    process.stdout.write(`${options.out} is up to date\n`);
    return;
  }
  mkdirSync(dirname(options.out), { recursive: true });
  writeFileSync(options.out, text);
  process.stdout.write(`wrote ${options.out}\n`);
}

export function registerContractCommand(program: Command): void {
  program
    .command('contract')
    .description(
      'write the JSON Schema contract of every workflow start input, signal, update and query answer, with workflow types, IDs and the task queue',
    )
    .option('--out <file>', 'where to write it (- for stdout)', CONTRACT_PATH)
    .option('--check', 'write nothing; exit 1 when the file differs from what the code generates')
    .action(writeContract);
}
