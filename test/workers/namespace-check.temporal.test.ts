/**
 * `rampflow worker` checks its namespace at start: on a namespace set up without one of rampflow's
 * search attributes (or with one of another type), where every journey's workflow task would fail in a
 * loop, the real worker process exits non-zero with one line on stderr naming the attribute and the
 * command that registers it. Each case starts a dev server of its own with the attributes it needs.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startDevServer, type DevServer } from '../../dev/dev-server';
import { freePort } from '../../dev/ports';
import { requireTemporalCli } from '../../dev/temporal-cli';
import { run } from '../support/run';
import { startWorkerProcess, type WorkerProcess } from '../support/worker-process';
import { temporalAddress } from '../support/temporal';

const KEYWORDS_ONLY = [
  { name: 'RampStage', type: 'Keyword' },
  { name: 'RampExternalId', type: 'Keyword' },
  { name: 'RampCustomerId', type: 'Keyword' },
] as const;

/** A worker that never calls the service: the check comes before anything else it does. */
function workerEnv(address: string): NodeJS.ProcessEnv {
  return {
    TEMPORAL_ADDRESS: address,
    TEMPORAL_NAMESPACE: 'default',
    TEMPORAL_TASK_QUEUE: `namespace-check-${Math.random().toString(36).slice(2)}`,
    RAMP_BASE_URL: 'http://127.0.0.1:9',
    RAMP_API_KEY: 'key',
    RAMP_API_SECRET: 'secret',
    TEMPORAL_WORKER_VERSIONING: 'false',
    LOG_LEVEL: 'info',
  };
}

/** The worker's output once it has logged that it started; fails the wait if it exits instead. */
async function untilStarted(worker: WorkerProcess): Promise<void> {
  let exitedWith: number | null | undefined;
  void worker.exited.then((code) => (exitedWith = code));
  while (!worker.output().includes('worker started')) {
    if (exitedWith !== undefined)
      throw new Error(`the worker exited (${exitedWith}) instead of starting:\n${worker.output()}`);
    await new Promise((wake) => setTimeout(wake, 200));
  }
}

async function stopped(worker: WorkerProcess): Promise<number | null> {
  worker.child.kill('SIGTERM');
  return worker.exited;
}

describe("rampflow worker on a namespace without rampflow's search attributes", () => {
  let server: DevServer | undefined;
  const workers: WorkerProcess[] = [];
  afterEach(async () => {
    for (const worker of workers.splice(0))
      if (worker.child.exitCode === null && worker.child.signalCode === null) await stopped(worker);
    await server?.stop();
    server = undefined;
  });

  it('exits non-zero naming the missing attribute and the command that registers it; after that command it starts', async () => {
    server = await startDevServer({ port: await freePort(), headless: true, searchAttributes: KEYWORDS_ONLY });
    const refused = startWorkerProcess(workerEnv(server.address));
    workers.push(refused);
    expect(await refused.exited).not.toBe(0);

    const stderr = refused
      .output()
      .split('\n')
      .filter((line) => line.startsWith('rampflow: '));
    expect(stderr).toHaveLength(1);
    expect(stderr[0]).toContain('RampStageSince (Datetime) is not registered');
    const command = /`(temporal operator search-attribute create [^`]+)`/.exec(stderr[0]!)?.[1];
    expect(command).toBe(
      `temporal operator search-attribute create --address ${server.address} --namespace default --name RampStageSince --type Datetime`,
    );
    expect(stderr[0]).not.toMatch(/RampStage |RampExternalId|RampCustomerId/);

    // The command, run as printed, is what the namespace needed.
    const cli = await requireTemporalCli();
    const registered = await run(cli.path, command!.split(' ').slice(1));
    expect(registered.code, registered.stderr).toBe(0);

    const worker = startWorkerProcess(workerEnv(server.address));
    workers.push(worker);
    await untilStarted(worker);
    expect(await stopped(worker)).toBe(0);
  });

  it('exits non-zero when an attribute is registered with another type, naming both types and the commands', async () => {
    server = await startDevServer({
      port: await freePort(),
      headless: true,
      searchAttributes: [...KEYWORDS_ONLY, { name: 'RampStageSince', type: 'Keyword' }],
    });
    const refused = startWorkerProcess(workerEnv(server.address));
    workers.push(refused);
    expect(await refused.exited).not.toBe(0);

    const stderr = refused
      .output()
      .split('\n')
      .filter((line) => line.startsWith('rampflow: '));
    expect(stderr).toHaveLength(1);
    expect(stderr[0]).toContain('RampStageSince is registered as Keyword, not Datetime');
    expect(stderr[0]).toContain(
      `\`temporal operator search-attribute remove --address ${server.address} --namespace default --name RampStageSince\``,
    );
    expect(stderr[0]).toContain(
      `\`temporal operator search-attribute create --address ${server.address} --namespace default --name RampStageSince --type Datetime\``,
    );
  });

  it("starts on a namespace with every attribute (the run's shared dev server)", async () => {
    const worker = startWorkerProcess(workerEnv(temporalAddress()));
    workers.push(worker);
    await untilStarted(worker);
    expect(await stopped(worker)).toBe(0);
  });
});
