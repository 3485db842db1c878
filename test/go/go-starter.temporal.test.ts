/**
 * A partner backend written in Go starts a journey with the Temporal Go SDK, by workflow type name and
 * task queue, with JSON input and no rampflow code, and reads its state with the journeyState query
 * (test/go-starter/main.go). The program is built here with the machine's Go toolchain; its modules
 * come from the Go module proxy, pinned by test/go-starter/go.sum.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EncryptionCodec } from '../../codec';
import { buildCodecServer } from '../../codec/codec-server';
import { journeyStateQuery, journeyWorkflowId } from '../../workflows/common/messages';
import { type JourneyHarness, startJourneyHarness } from '../support/journey-harness';
import { PROJECT_ROOT, run } from '../support/run';
import { temporalAddress, testPayloadKeys } from '../support/temporal';

const SOURCE_DIR = join(PROJECT_ROOT, 'test', 'go-starter');
const buildDir = mkdtempSync(join(tmpdir(), 'rampflow-go-starter-'));
const binary = join(buildDir, 'go-starter');
let h: JourneyHarness;
/** rampflow's codec server, through which the Go program reads the (encrypted) query answers. */
let codecServer: FastifyInstance;
const CODEC_TOKEN = 'go-starter-codec-token-0123456789';

beforeAll(async () => {
  // A cold module cache downloads the SDK first: 4 to 8 minutes on a busy 2-core machine, seconds after.
  const build = await run('go', ['build', '-C', SOURCE_DIR, '-buildvcs=false', '-o', binary, '.'], {
    timeoutMs: 900_000,
  });
  expect(build.code, `go build failed:\n${build.stderr}`).toBe(0);
  h = await startJourneyHarness();
  codecServer = await buildCodecServer({
    codec: new EncryptionCodec(testPayloadKeys()),
    token: CODEC_TOKEN,
    corsOrigins: [],
    logger: pino({ level: 'silent' }),
  });
  await codecServer.listen({ host: '127.0.0.1', port: 0 });
}, 960_000);

afterAll(async () => {
  await codecServer?.close();
  await h?.close();
  rmSync(buildDir, { recursive: true, force: true });
});

describe('a journey started from Go with the Temporal Go SDK', () => {
  it('runs from JSON input to the KYC wait, and the Go program reads its state by query', async () => {
    const externalId = `go-${Date.now()}`;
    const input = { customer: { externalId, realName: 'Grace Hopper', email: 'grace@example.com' } };
    const codecEndpoint = `http://127.0.0.1:${(codecServer.server.address() as AddressInfo).port}`;
    const result = await run(
      binary,
      [
        '-address',
        temporalAddress(),
        '-task-queue',
        h.taskQueue,
        '-input',
        JSON.stringify(input),
        '-wait-stage',
        'AWAITING_KYC',
        '-timeout',
        '90s',
        '-codec-endpoint',
        codecEndpoint,
        '-codec-auth',
        `Bearer ${CODEC_TOKEN}`,
      ],
      { timeoutMs: 120_000 },
    );
    expect(result.code, result.stderr).toBe(0);

    const state = JSON.parse(result.stdout) as { externalId: string; stage: string; customer: { id?: string } };
    expect(state).toMatchObject({ externalId, stage: 'AWAITING_KYC' });
    expect(state.customer.id).toBeTruthy();
    // The same journey, seen from the TypeScript side: the ID the contract prescribes, the defaults filled in.
    const handle = h.client.workflow.getHandle(journeyWorkflowId(externalId));
    expect((await handle.query(journeyStateQuery)).customer.id).toBe(state.customer.id);
    expect((await handle.describe()).type).toBe('customerJourney');
  });
});
