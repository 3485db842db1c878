/**
 * The operator commands need RAMPFLOW_PAYLOAD_KEYS: in a shell that does not set it they use the key
 * `npm start` keeps in `.data/payload-keys` of the working directory, and without either they fail
 * with one line naming the variable. Child processes against the shared dev server and the harness's
 * worker, run from folders of their own.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startJourneyHarness, type JourneyHarness } from '../support/journey-harness';
import { runRampflow, type RunResult } from '../support/run';
import { temporalAddress } from '../support/temporal';

let h: JourneyHarness;
const folders: string[] = [];

beforeAll(async () => {
  h = await startJourneyHarness();
}, 120_000);

afterAll(async () => {
  await h?.close();
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

function newFolder(): string {
  const folder = mkdtempSync(join(tmpdir(), 'rampflow-local-stack-'));
  folders.push(folder);
  return folder;
}

/** The CLI run from `cwd` in a shell that sets no RAMPFLOW_PAYLOAD_KEYS. */
function rampflowIn(cwd: string, ...args: string[]): Promise<RunResult> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    TEMPORAL_ADDRESS: temporalAddress(),
    TEMPORAL_TASK_QUEUE: h.taskQueue,
  };
  delete env.RAMPFLOW_PAYLOAD_KEYS;
  return runRampflow(args, { env, cwd });
}

describe('the payload keys of the operator commands', () => {
  it("are read from the local stack's .data/payload-keys when the shell does not set RAMPFLOW_PAYLOAD_KEYS", async () => {
    const handle = await h.startJourney({});
    const { externalId } = await h.waitForJourney(handle, (state) => state.stage === 'AWAITING_KYC');
    const checkout = newFolder();
    mkdirSync(join(checkout, '.data'));
    // As dev/local-secrets.ts writes it: the key text and a newline, owner-readable only.
    writeFileSync(join(checkout, '.data', 'payload-keys'), `${process.env.RAMPFLOW_PAYLOAD_KEYS}\n`, { mode: 0o600 });

    const status = await rampflowIn(checkout, 'journey', 'status', externalId);
    expect(status.stderr).toBe('');
    expect(status.code).toBe(0);
    expect(status.stdout).toContain(`journey ${externalId}: AWAITING_KYC`);
    await handle.terminate('test over');
  });

  it('fail with one line naming the variable to set when neither is there', async () => {
    for (const command of [
      ['journey', 'list'],
      ['payout', 'list'],
      ['deposit', 'list'],
      ['status'],
      ['partner-events', 'endpoints'],
    ]) {
      const result = await rampflowIn(newFolder(), ...command);
      expect(result, command.join(' ')).toEqual({
        code: 1,
        stdout: '',
        stderr:
          'rampflow: RAMPFLOW_PAYLOAD_KEYS is not set and there is no .data/payload-keys here (where npm start keeps its key): set RAMPFLOW_PAYLOAD_KEYS to the keys the worker uses (docs/deploying/customer-data-and-keys.md)\n',
      });
    }
  });
});
