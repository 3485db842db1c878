/**
 * `rampflow partner-events endpoints` says whose configuration it shows: the local stack's worker's
 * (the file `npm start` writes beside its keys) when the shell sets no endpoints, this shell's when it
 * does, and plainly that it cannot see a worker started elsewhere when there is neither.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PARTNER_ENDPOINTS_FILE, PAYLOAD_KEYS_FILE } from '../../dev/local-secrets';
import { endpointsVariable, generateEndpointSecret, localEndpointConfig } from '../../partner-events/local-endpoint';
import { runRampflow, type RunResult } from '../support/run';

const folders: string[] = [];
afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

function newFolder(): string {
  const folder = mkdtempSync(join(tmpdir(), 'rampflow-endpoints-'));
  folders.push(folder);
  return folder;
}

/** The command run from `cwd` in a shell that sets no endpoints and no payload keys, plus `env`. */
function endpointsIn(cwd: string, env: NodeJS.ProcessEnv = {}): Promise<RunResult> {
  const shell: NodeJS.ProcessEnv = { ...process.env };
  for (const name of [
    'PARTNER_EVENT_ENDPOINTS',
    'PARTNER_EVENT_ENDPOINTS_FILE',
    'PARTNER_EVENTS_ALLOW_PRIVATE_ENDPOINTS',
    'PARTNER_EVENTS_DIR',
    'RAMPFLOW_PAYLOAD_KEYS',
  ])
    delete shell[name];
  return runRampflow(['partner-events', 'endpoints'], { cwd, env: { ...shell, ...env } });
}

describe('rampflow partner-events endpoints', () => {
  it("shows the local stack's worker's endpoints when the shell configures none", async () => {
    const checkout = newFolder();
    mkdirSync(join(checkout, '.data'));
    writeFileSync(join(checkout, '.data', PAYLOAD_KEYS_FILE), `${process.env.RAMPFLOW_PAYLOAD_KEYS}\n`, {
      mode: 0o600,
    });
    // As dev/stack.ts records them for its worker: its own endpoint on loopback.
    const worker = [localEndpointConfig('http://127.0.0.1:8791/', generateEndpointSecret(), 'dev')];
    writeFileSync(join(checkout, '.data', PARTNER_ENDPOINTS_FILE), `${endpointsVariable(worker)}\n`, { mode: 0o600 });

    const result = await endpointsIn(checkout);
    expect(result).toEqual({
      code: 0,
      stdout:
        "endpoints of the local stack's worker (npm start), as it last started: .data/partner-event-endpoints.json\ndev  http://127.0.0.1:8791/  enabled\n",
      stderr: '',
    });
  });

  it("shows this shell's endpoints when it sets them, and says a worker reads its own environment", async () => {
    const shell = [localEndpointConfig('https://partner.example/hooks', generateEndpointSecret(), 'partner')];
    const result = await endpointsIn(newFolder(), {
      PARTNER_EVENT_ENDPOINTS: endpointsVariable(shell),
      RAMPFLOW_PAYLOAD_KEYS: process.env.RAMPFLOW_PAYLOAD_KEYS,
    });
    expect(result.stderr).toBe('');
    expect(result.stdout).toBe(
      "endpoints as this shell's PARTNER_EVENT_ENDPOINTS / PARTNER_EVENT_ENDPOINTS_FILE configure them (a worker reads its own environment: check it matches)\npartner  https://partner.example/hooks  enabled\n",
    );
  });

  it('says plainly that it cannot see a worker started elsewhere when there is neither', async () => {
    const result = await endpointsIn(newFolder(), { RAMPFLOW_PAYLOAD_KEYS: process.env.RAMPFLOW_PAYLOAD_KEYS });
    expect(result.stderr).toBe('');
    expect(result.stdout).toBe(
      'this shell sets no PARTNER_EVENT_ENDPOINTS or PARTNER_EVENT_ENDPOINTS_FILE and there is no local stack here: a worker started elsewhere reads its own environment, which this command cannot see\nno endpoints configured: partners read events through GET /events\n',
    );
  });
});
