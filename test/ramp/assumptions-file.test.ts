/**
 * RAMP_ASSUMPTIONS_FILE: a checked JSON file of overrides of ramp/assumptions.ts that the client
 * follows, and that stops `rampflow api` (a child process, as a user runs it) at start with one line
 * naming the bad key.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RampClient } from '../../ramp';
import { loadAssumptionsFile, parseAssumptionsFile } from '../../ramp/assumptions-file';
import { startTestSandbox, TEST_PARTNER, type TestSandbox } from '../support/sandbox';

const BIN = join(__dirname, '../../bin/rampflow.cjs');
const folder = mkdtempSync(join(tmpdir(), 'rampflow-assumptions-'));

function fileWith(name: string, text: string): string {
  const path = join(folder, name);
  writeFileSync(path, text);
  return path;
}

function runApi(env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, 'api', 'GET', '/customer/list?pageNum=1&pageSize=1'],
      { env: { ...process.env, ...env }, timeout: 60_000 },
      (error, stdout, stderr) => {
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr });
      },
    );
  });
}

describe('a bad assumptions file is refused, naming the key', () => {
  it.each([
    ['{"pageSize": 50}', 'RAMP_ASSUMPTIONS_FILE: unknown key pageSize'],
    [
      '{"queryParameterNames": {"externalID": "external_id"}}',
      'RAMP_ASSUMPTIONS_FILE: unknown key queryParameterNames.externalID',
    ],
    [
      '{"queryParameterNames": {"externalId": "external id"}}',
      'RAMP_ASSUMPTIONS_FILE: queryParameterNames.externalId: expected a parameter name',
    ],
    ['{"maxPageSize": 500}', 'RAMP_ASSUMPTIONS_FILE: maxPageSize: the interface allows at most 100'],
    ['{"listOrder": "oldest-first"}', 'RAMP_ASSUMPTIONS_FILE: listOrder:'],
    ['{"legacySuccessStatuses": []}', 'RAMP_ASSUMPTIONS_FILE: legacySuccessStatuses: expected at least one status'],
    ['{"maxPageSize": 50,', 'RAMP_ASSUMPTIONS_FILE: not valid JSON'],
  ])('%s', (text, line) => {
    expect(() => parseAssumptionsFile(text)).toThrow(line);
  });

  it('a file that does not exist', () => {
    expect(() => loadAssumptionsFile(join(folder, 'missing.json'))).toThrow(
      /^RAMP_ASSUMPTIONS_FILE: cannot read .*missing\.json \(ENOENT\)$/,
    );
  });
});

describe('the client follows the file', () => {
  let s: TestSandbox;
  beforeAll(async () => {
    s = await startTestSandbox();
    for (let index = 0; index < 7; index += 1)
      await s.ramp.customers.create({
        externalId: `file-${index}`,
        realName: 'Test Person',
        email: `file-${index}@example.com`,
      });
  });
  afterAll(async () => {
    await s.close();
  });

  it('asks for no more than maxPageSize and walks every page at that size', async () => {
    const ramp = new RampClient({
      baseUrl: s.sandbox.url,
      ...TEST_PARTNER,
      assumptions: loadAssumptionsFile(fileWith('pages.json', '{"maxPageSize": 3}')),
    });
    try {
      const page = await ramp.customers.list({ pageNum: 1, pageSize: 100 });
      expect(page.pageSize).toBe(3);
      expect(page.list).toHaveLength(3);
      const all = [];
      for await (const customer of ramp.customers.iterate({})) all.push(customer.id);
      expect(new Set(all).size).toBe(7);
    } finally {
      await ramp.close();
    }
  });

  it("reads the older generation's success from legacySuccessStatuses", () => {
    const overrides = parseAssumptionsFile('{"legacySuccessStatuses": ["done", 0]}');
    expect(overrides.isLegacySuccessStatus?.('DONE')).toBe(true);
    expect(overrides.isLegacySuccessStatus?.(0)).toBe(true);
    expect(overrides.isLegacySuccessStatus?.('SUCCESS')).toBe(false);
  });
});

// Each case starts the CLI as a child process, which takes seconds on a loaded machine.
describe('rampflow api with RAMP_ASSUMPTIONS_FILE', { timeout: 120_000 }, () => {
  const env = { RAMP_BASE_URL: 'http://127.0.0.1:9', RAMP_API_KEY: 'key', RAMP_API_SECRET: 'secret-value' };

  it('stops at start with one line naming the key, before any call', async () => {
    const result = await runApi({
      ...env,
      RAMP_ASSUMPTIONS_FILE: fileWith('bad.json', '{"queryParameterNames": {"pageSize": ""}}'),
    });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^rampflow: RAMP_ASSUMPTIONS_FILE: queryParameterNames\.pageSize: [^\n]+\n$/);
  });
});

describe('the worker and the receiver stop at start on a bad file', () => {
  const env = {
    RAMP_BASE_URL: 'http://127.0.0.1:9',
    RAMP_API_KEY: 'key',
    RAMP_API_SECRET: 'secret-value',
    RAMPFLOW_PAYLOAD_KEYS: `k1:${Buffer.alloc(32, 7).toString('base64')}`,
    WEBHOOK_TOKEN: 'a-token-of-sixteen-characters',
    LOG_LEVEL: 'silent',
    TEMPORAL_ADDRESS: '127.0.0.1:9',
  };

  it('the worker', async () => {
    const { runWorkerProcess } = await import('../../workers/process');
    await expect(
      runWorkerProcess({ ...env, RAMP_ASSUMPTIONS_FILE: fileWith('worker.json', '{"clockSkewToleranceMs": 10}') }),
    ).rejects.toThrow(/^RAMP_ASSUMPTIONS_FILE: clockSkewToleranceMs: /);
  });

  it('the receiver', async () => {
    const { runWebhookReceiver } = await import('../../webhooks/receiver-process');
    await expect(
      runWebhookReceiver({}, { ...env, RAMP_ASSUMPTIONS_FILE: fileWith('receiver.json', '{"listOrder": "sideways"}') }),
    ).rejects.toThrow(/^RAMP_ASSUMPTIONS_FILE: listOrder: /);
  });
});
