/**
 * `npm run histories:record`: records the histories the replay test runs against the current
 * workflow code (test/workflows/replay.test.ts). Run it when a workflow's shape changes on purpose,
 * and commit the new fixtures with the change; an unintended change then fails the replay test.
 *
 * It starts its own dev server and sandbox, runs one journey with an AUD onramp and a USDT offramp
 * through a deposit each way to completion, closes it, and saves the three histories.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { join, resolve } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { z } from 'zod';
import { jsonBody, RampClient } from '../ramp';
import { createSandbox, uniformAutopilotDelays } from '../sandbox';
import { createRampflowWorker } from '../workers/worker';
import { depositWorkflowId, journeyWorkflowId } from '../workflows/ids';
import { JourneyInputSchema } from '../workflows/journey-input';
import { closeCustomerUpdate, journeyStateQuery, type JourneyState } from '../workflows/messages';
import type { customerJourney, reconcileWithService } from '../workflows';
import { startDevServer } from './dev-server';
import { freePort } from './ports';
import { requireTemporalCli } from './temporal-cli';

const FIXTURES = join(resolve(__dirname, '..'), 'test', 'fixtures', 'histories');
const PARTNER = { apiKey: 'record-key', apiSecret: 'record-secret' };
const WALLET = '0x52908400098527886E0F7030069857D2E4169EE7';
const SOURCE = { bsbNumber: '062000', accountNumber: '12345678', accountName: 'Ada Lovelace' };
const log = (line: string) => process.stdout.write(`[histories:record] ${line}\n`);

async function until<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  for (let attempt = 0; attempt < 600; attempt++) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((wake) => setTimeout(wake, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

async function main(): Promise<void> {
  log('starting a dev server, a sandbox on autopilot and a worker');
  const server = await startDevServer({ port: await freePort(), headless: true });
  const sandbox = await createSandbox({ partners: [PARTNER], autopilot: { ...uniformAutopilotDelays(1), kycSubmittedSeconds: 0 }, audWhitelistDelaySeconds: 1 });
  const ramp = new RampClient({ baseUrl: sandbox.url, ...PARTNER });
  const connection = await Connection.connect({ address: server.address });
  // Recorded without the payload codec: the fixtures hold only test data, and the replay test (and
  // anyone reading them) needs no key. The codec changes no workflow command, so replay is unaffected.
  const client = new Client({ connection });
  const workerConnection = await NativeConnection.connect({ address: server.address });
  const taskQueue = 'record-histories';
  const worker = await createRampflowWorker({ connection: workerConnection, namespace: 'default', taskQueue, ramp, dataConverter: {}, depositTimings: { pollIntervalSeconds: 1 } });
  const running = worker.run();
  try {
    const externalId = 'recorded-user';
    const handle = await client.workflow.start<typeof customerJourney>('customerJourney', {
      taskQueue,
      workflowId: journeyWorkflowId(externalId),
      args: [
        JourneyInputSchema.parse({
          customer: { externalId, realName: 'Ada Lovelace', email: 'ada@example.com' },
          onramp: { currency: 'AUD', cryptoAddress: { address: WALLET, network: 'ETH' }, audSourceAccount: SOURCE },
          offramp: { currency: 'USDT', network: 'ETH', bankAccount: { accountNo: '987654321' } },
          timings: { pollIntervalSeconds: 1 },
        }),
      ],
    });
    const state = (accept: (s: JourneyState) => boolean) => until('the journey', async () => {
      const current = await handle.query(journeyStateQuery);
      return accept(current) ? current : undefined;
    });
    const post = (path: string, body: unknown) => ramp.http.request({ method: 'POST', path, body: jsonBody(body) }, z.looseObject({ id: z.string() }));

    const created = await state((s) => s.customer.id !== undefined);
    const customerId = created.customer.id!;
    await post('/sandbox/crypto-address/create', { customerId, currency: 'USDT', network: 'ETH', address: WALLET });
    await post('/sandbox/bank-account/create', { customerId, currency: 'AUD', bankName: 'Test Bank', accountNo: '987654321', swift: 'TESTAU2S' });
    const active = await state((s) => s.stage === 'ACTIVE');
    log('journey ACTIVE; simulating a deposit each way');
    const fiat = await post('/sandbox/deposit/simulate', { virtualAccountId: active.onramp!.virtualAccount!.id, amount: '100.00', currency: 'AUD', sender: SOURCE });
    const crypto = await post('/sandbox/deposit/simulate', { depositAddressId: active.offramp!.depositAddress!.id, amount: '50.00', currency: 'USDT', sender: { address: '0x0000000000000000000000000000000000000001', network: 'ETH' } });
    // No webhooks here: one reconciliation pass starts the deposits' workflows, as in production when
    // no event announced them.
    await client.workflow.execute<typeof reconcileWithService>('reconcileWithService', { taskQueue, workflowId: 'recorded-reconcile', args: [{}] });
    await state((s) => s.deposits.byStage.COMPLETED === 2);
    await handle.executeUpdate(closeCustomerUpdate, { args: [{ reason: 'recording done' }] });
    await handle.result();

    mkdirSync(FIXTURES, { recursive: true });
    const histories: [string, string][] = [
      ['journey.json', journeyWorkflowId(externalId)],
      ['deposit-onramp.json', depositWorkflowId(fiat.id)],
      ['deposit-offramp.json', depositWorkflowId(crypto.id)],
    ];
    // The CLI's JSON export is the format the Web UI downloads and historyFromJSON reads.
    const cli = await requireTemporalCli();
    for (const [file, workflowId] of histories) {
      const { stdout } = await promisify(execFile)(cli.path, ['workflow', 'show', '--address', server.address, '--workflow-id', workflowId, '--output', 'json'], { maxBuffer: 64 * 1024 * 1024 });
      writeFileSync(join(FIXTURES, file), stdout);
      log(`saved ${workflowId} (${(JSON.parse(stdout) as { events: unknown[] }).events.length} events) to test/fixtures/histories/${file}`);
    }
  } finally {
    worker.shutdown();
    await running;
    await workerConnection.close();
    await connection.close();
    await ramp.close();
    await sandbox.close();
    await server.stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`[histories:record] ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
