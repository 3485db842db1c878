/**
 * A partner backend in Go verifies rampflow's deliveries with the Standard Webhooks Go library
 * (test/partner-events-go/main.go, the README's Go example made runnable): a delivery, a rotation's
 * two signatures, and a delivery signed with a secret it does not know. The program is built here
 * with the machine's Go toolchain; its one module comes from the Go module proxy, pinned by go.sum.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDeliveryAgent, deliverEvent } from '../../partner-events/deliver';
import type { PartnerEndpoint } from '../../partner-events/endpoint-types';
import { generateEndpointSecret } from '../../partner-events/local-endpoint';
import { PROJECT_ROOT, run } from '../support/run';
import { until } from '../support/until';
import { sampleEvent } from './support';

const SOURCE_DIR = join(PROJECT_ROOT, 'test', 'partner-events-go');
const buildDir = mkdtempSync(join(tmpdir(), 'rampflow-partner-events-go-'));
const binary = join(buildDir, 'partner-events-go');
const SECRET = generateEndpointSecret();
// Loopback endpoints: what PARTNER_EVENTS_ALLOW_PRIVATE_ENDPOINTS=true allows.
const agent = createDeliveryAgent({ allowPrivateAddresses: true });
let backend: ChildProcessWithoutNullStreams;
let output = '';
let url: string;

interface GoResult {
  verified: boolean;
  error?: string;
  id?: string;
  type?: string;
  sequence?: number;
}

const results = (): GoResult[] =>
  output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as GoResult);

beforeAll(async () => {
  // A cold module cache downloads one small module; seconds after that.
  const build = await run('go', ['build', '-C', SOURCE_DIR, '-buildvcs=false', '-o', binary, '.'], {
    timeoutMs: 300_000,
  });
  expect(build.code, `go build failed:\n${build.stderr}`).toBe(0);
  backend = spawn(binary, ['-secret', SECRET]);
  backend.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  url = await until("the Go backend's URL", async () => /^(http:\/\/\S+)\n/.exec(output)?.[1], 10_000, 20);
}, 330_000);

afterAll(async () => {
  if (backend) {
    backend.stdin.end();
    await new Promise((done) => backend.once('exit', done));
  }
  await agent.close();
  rmSync(buildDir, { recursive: true, force: true });
});

/** The Go program's line for the delivery just made (its output arrives a moment after the answer). */
async function nextResult(before: number): Promise<GoResult> {
  return until("the Go backend's line", async () => results()[before], 5_000, 20);
}

const endpoint = (secrets: string[]): PartnerEndpoint => ({ name: 'go-backend', url, secrets });

describe('a Go backend using the Standard Webhooks Go library', () => {
  it('verifies a delivery', async () => {
    const before = results().length;
    const event = sampleEvent({ id: 'evt_goVerifiesThis000001', sequence: 3 });
    expect(await deliverEvent(endpoint([SECRET]), event, { timeoutMs: 5_000, dispatcher: agent })).toEqual({
      outcome: 'delivered',
      status: 204,
    });
    expect(await nextResult(before)).toEqual({ verified: true, id: event.id, type: event.type, sequence: 3 });
  });

  it('verifies a delivery signed with a new secret and the old one it knows (rotation)', async () => {
    const before = results().length;
    const event = sampleEvent({ id: 'evt_goVerifiesRotation01' });
    expect(
      await deliverEvent(endpoint([generateEndpointSecret(), SECRET]), event, { timeoutMs: 5_000, dispatcher: agent }),
    ).toEqual({ outcome: 'delivered', status: 204 });
    expect(await nextResult(before)).toMatchObject({ verified: true, id: event.id });
  });

  it('refuses a delivery signed with a secret it does not know', async () => {
    const before = results().length;
    expect(
      await deliverEvent(endpoint([generateEndpointSecret()]), sampleEvent(), { timeoutMs: 5_000, dispatcher: agent }),
    ).toEqual({ outcome: 'failed', status: 401, reason: 'HTTP 401' });
    expect(await nextResult(before)).toEqual({
      verified: false,
      error: expect.stringContaining('no matching signature found'),
    });
  });
});
