/**
 * What the `journey` and `deposit` commands share: a rampflow client configured by the TEMPORAL_*
 * environment (the payload keys also from a local stack, cli/local-stack.ts) for the length of one command, and reading a JSON option given inline or as @file.
 */
import { readFileSync } from 'node:fs';
import { InvalidArgumentError } from 'commander';
import { createRampflowClientFromEnv, RampflowWorkflowEndedError, type RampflowClient } from '../client';
import { withPayloadKeys } from './local-stack';
import { endedJson, formatEnded } from './state-format';

export async function withRampflowClient<T>(work: (client: RampflowClient) => Promise<T>): Promise<T> {
  const client = await createRampflowClientFromEnv(withPayloadKeys());
  try {
    return await work(client);
  } finally {
    await client.close();
  }
}

/** `--input '{"customer":...}'` or `--input @signup.json`. */
export function readJsonOption(flag: string, value: string): unknown {
  const text = value.startsWith('@') ? readFileOrExplain(flag, value.slice(1)) : value;
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new Error(`${flag} is not valid JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function readFileOrExplain(flag: string, path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new Error(`${flag}: cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
}

/** Commander parser for `--limit`. */
export function positiveInteger(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1) throw new InvalidArgumentError('must be a positive whole number');
  return parsed;
}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/**
 * What `journey|deposit|payout status` print: the state while the workflow runs or once it completed,
 * or how it ended when it failed, was terminated, timed out or was cancelled (decoded, with its type
 * and the fields it names). Either way the status was read, so the command exits 0.
 */
export async function printStatus<T>(
  id: { key: string; value: string },
  options: { json?: boolean },
  read: (client: RampflowClient) => Promise<T>,
  format: (state: T) => string,
): Promise<void> {
  let state: T;
  try {
    state = await withRampflowClient(read);
  } catch (error) {
    if (!(error instanceof RampflowWorkflowEndedError)) throw error;
    if (options.json) printJson(endedJson(id.key, id.value, error));
    else process.stdout.write(formatEnded(error));
    return;
  }
  if (options.json) printJson(state);
  else process.stdout.write(format(state));
}
