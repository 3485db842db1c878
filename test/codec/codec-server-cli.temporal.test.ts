/**
 * `rampflow codec-server` as operators run it (a child process configured by the environment), and the
 * `temporal` CLI reading a journey's history through it: decrypted with the token, ciphertext without.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireTemporalCli } from '../../dev/temporal-cli';
import { freePort } from '../../dev/ports';
import { journeyWorkflowId } from '../../workflows/common/messages';
import { JourneyInputSchema } from '../../workflows/schemas';
import { TEST_OFFRAMP } from '../support/journey-harness';
import { PROJECT_ROOT, run, runRampflow } from '../support/run';
import { connectClient, temporalAddress, uniqueTaskQueue } from '../support/temporal';

const TOKEN = randomBytes(24).toString('hex');
let codecServer: ChildProcess;
let endpoint: string;
let temporalCli: string;
let workflowId: string;
const email = `codec.${randomUUID()}@example.com`;

beforeAll(async () => {
  temporalCli = (await requireTemporalCli()).path;
  const port = await freePort();
  endpoint = `http://127.0.0.1:${port}`;
  codecServer = spawn(
    process.execPath,
    [join(PROJECT_ROOT, 'bin', 'rampflow.cjs'), 'codec-server', '--host', '127.0.0.1'],
    {
      cwd: PROJECT_ROOT,
      env: { ...process.env, CODEC_SERVER_PORT: String(port), CODEC_SERVER_TOKEN: TOKEN, LOG_LEVEL: 'warn' },
      stdio: 'ignore',
    },
  );
  const deadline = Date.now() + 60_000;
  while (
    !(await fetch(`${endpoint}/healthz`).then(
      (answer) => answer.ok,
      () => false,
    ))
  ) {
    if (Date.now() > deadline) throw new Error('rampflow codec-server did not start');
    await new Promise((wake) => setTimeout(wake, 250));
  }

  // A journey nobody works on: its first event holds the encrypted input.
  const { client, close } = await connectClient();
  const externalId = `codec-cli-${randomUUID()}`;
  workflowId = journeyWorkflowId(externalId);
  await client.workflow.start('customerJourney', {
    taskQueue: uniqueTaskQueue('codec-cli'),
    workflowId,
    args: [
      JourneyInputSchema.parse({ customer: { externalId, realName: 'Ada Lovelace', email }, offramp: TEST_OFFRAMP }),
    ],
  });
  await close();
});
afterAll(async () => {
  codecServer?.kill('SIGTERM');
});

/** `temporal workflow show --output json`, with every payload's data (base64 there) read as text. */
async function show(...codecFlags: string[]) {
  const result = await run(temporalCli, [
    'workflow',
    'show',
    '--address',
    temporalAddress(),
    '--workflow-id',
    workflowId,
    '--output',
    'json',
    ...codecFlags,
  ]);
  const data = [...result.stdout.matchAll(/"data": "([A-Za-z0-9+/=]*)"/g)].map((match) =>
    Buffer.from(match[1]!, 'base64').toString('latin1'),
  );
  return { ...result, stdout: `${result.stdout}\n${data.join('\n')}` };
}

describe('rampflow codec-server with the temporal CLI', () => {
  it('decrypts for an operator who presents the token, as a bearer token or in the path', async () => {
    const bearer = await show('--codec-endpoint', endpoint, '--codec-auth', `Bearer ${TOKEN}`);
    expect(bearer.code, bearer.stderr).toBe(0);
    expect(bearer.stdout).toContain(email);
    const inPath = await show('--codec-endpoint', `${endpoint}/${TOKEN}`);
    expect(inPath.code, inPath.stderr).toBe(0);
    expect(inPath.stdout).toContain(email);
  });

  it('shows ciphertext to everyone else', async () => {
    const plain = await show();
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stdout).not.toContain(email);
    expect(plain.stdout).toContain(Buffer.from('binary/encrypted').toString('base64'));
    const wrongToken = await show('--codec-endpoint', endpoint, '--codec-auth', 'Bearer not-the-token');
    expect(`${wrongToken.stdout}${wrongToken.stderr}`).not.toContain(email);
  });

  it('will not start without its keys or its token, saying so in one line each', async () => {
    const refused = await runRampflow(['codec-server'], {
      env: { ...process.env, RAMPFLOW_PAYLOAD_KEYS: 'k1:short', CODEC_SERVER_TOKEN: '' },
    });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /^rampflow: invalid configuration:\n {2}CODEC_SERVER_TOKEN: is required\n {2}RAMPFLOW_PAYLOAD_KEYS: key k1 is not the base64 of 32 bytes; .*\n$/,
    );
  });
});
