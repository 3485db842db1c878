/**
 * `rampflow api` as a user runs it: a child process (`node bin/rampflow.cjs api ...`) against a
 * loopback server that checks every signature with its own HMAC.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { failure, startSignedServer, success, type Reply, type SignedServer } from './support/signed-server';

const SECRET = 'cli-secret-s3cr3t-value';
const BIN = join(__dirname, '../../bin/rampflow.cjs');
let server: SignedServer;
let nextReply: Reply = success(null);

beforeAll(async () => {
  server = await startSignedServer(SECRET, () => nextReply);
});
afterAll(async () => {
  await server.close();
});

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function run(
  args: string[],
  env: Record<string, string | undefined> = {
    RAMP_BASE_URL: server.url,
    RAMP_API_KEY: 'cli-key',
    RAMP_API_SECRET: SECRET,
  },
): Promise<Run> {
  const { RAMP_BASE_URL: _url, RAMP_API_KEY: _key, RAMP_API_SECRET: _secret, ...inherited } = process.env;
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, 'api', ...args],
      { env: { ...inherited, ...env }, timeout: 60_000 },
      (error, stdout, stderr) => {
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr });
      },
    );
  });
}

// Each case starts the CLI as a child process, which takes seconds on a loaded machine.
describe('rampflow api', { timeout: 120_000 }, () => {
  it('signs a GET, sends the query as typed and prints the JSON response', async () => {
    nextReply = success({ list: [], total: 0, pageNum: 1, pageSize: 10 });
    const before = server.requests.length;
    const result = await run(['GET', '/customer/list?pageSize=10&pageNum=1']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      status: 'SUCCESS',
      data: { list: [], total: 0, pageNum: 1, pageSize: 10 },
    });
    const request = server.requests[before];
    expect(request?.target).toBe('/customer/list?pageSize=10&pageNum=1');
    expect(request?.headers.host).toBe(`127.0.0.1:${server.port}`);
    expect(request?.signatureValid).toBe(true);
  });

  it('sends --data byte for byte, as typed', async () => {
    nextReply = success({ id: 'c-1' });
    const before = server.requests.length;
    const data = '{ "externalId": "ext-1",  "realName": "Zoë" }';
    const result = await run(['POST', '/customer/create', '--data', data]);
    expect(result.code).toBe(0);
    expect(server.requests[before]?.body.toString('utf8')).toBe(data);
    expect(server.requests[before]?.signatureValid).toBe(true);
  });

  it('reads --data @file', async () => {
    nextReply = success({ message: 'ok' });
    const directory = mkdtempSync(join(tmpdir(), 'rampflow-cli-'));
    const file = join(directory, 'events.json');
    const content = '{"events":["DEPOSIT_RECEIVED","va.approved"]}\n';
    writeFileSync(file, content);
    const before = server.requests.length;
    const result = await run(['POST', '/subscribed-events', '--data', `@${file}`]);
    expect(result.code).toBe(0);
    expect(server.requests[before]?.body.toString('utf8')).toBe(content);
    expect(server.requests[before]?.signatureValid).toBe(true);
  });

  it('--debug prints the canonical string to stderr, never the secret', async () => {
    nextReply = success([]);
    const before = server.requests.length;
    const result = await run(['GET', '/balance', '--debug']);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(server.requests[before]?.canonical);
    expect(`${result.stdout}${result.stderr}`).not.toContain(SECRET);
  });

  it('exits non-zero with the typed error message on a 422', async () => {
    nextReply = failure('INVALID_PARAMETERS', 'externalId already exists');
    const result = await run(['POST', '/customer/create', '--data', '{"externalId":"dup"}']);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim()).toBe(
      'rampflow: POST /customer/create (HTTP 422): the service refused the parameters: INVALID_PARAMETERS: externalId already exists',
    );
  });

  it("quotes the service's own status word and message, as a user greps for them", async () => {
    nextReply = failure('INVALID_PARAMETERS', 'pageSize must be between 1 and 100');
    const result = await run(['GET', '/deposit/list?pageSize=500']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('INVALID_PARAMETERS: pageSize must be between 1 and 100');
  });

  it('reads the older generation outcome from the 200 body of /create-va', async () => {
    nextReply = { json: { status: 'FAIL', message: 'bad wallet signature' } };
    const result = await run(['POST', '/create-va', '--data', '{"user_id":"u-1","currency":"AUD"}']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'POST /create-va (HTTP 200): the older generation answered a failure: FAIL: bad wallet signature',
    );
  });

  it('names every missing or bad variable on its own line, without the values', async () => {
    const result = await run(['GET', '/balance'], {
      RAMP_BASE_URL: 'ftp://files.example',
      RAMP_API_KEY: '',
      RAMP_API_SECRET: undefined,
    });
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toEqual([
      'rampflow: RAMP_BASE_URL must be an http:// or https:// URL',
      'RAMP_API_KEY is empty',
      'RAMP_API_SECRET is not set',
    ]);
  });

  it('refuses --data that is not JSON, and a path that would need re-encoding', async () => {
    const before = server.requests.length;
    const notJson = await run(['POST', '/customer/create', '--data', '{oops']);
    expect(notJson.code).toBe(1);
    expect(notJson.stderr).toContain('--data is not valid JSON');
    const badPath = await run(['GET', '/customer/detail?externalId=has space']);
    expect(badPath.code).toBe(1);
    expect(badPath.stderr).toContain('percent-encode');
    expect(server.requests.length).toBe(before);
  });
});
