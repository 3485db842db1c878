/**
 * `rampflow probe` against the sandbox: the default sandbox holds every assumption the probe checks;
 * each variant (sandbox/variants.ts) differs on exactly its own, with the override that matches it;
 * and the probe given that override (RAMP_ASSUMPTIONS_FILE) finds every assumption held again.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadAssumptionsFile } from '../../ramp/assumptions-file';
import { runProbe, type ProbeReport } from '../../ramp/probe';
import { createSandbox, variantOptions, type Sandbox } from '../../sandbox';

const PARTNER = { apiKey: 'probe-key', apiSecret: 'probe-secret-never-printed' };
const BIN = join(__dirname, '../../bin/rampflow.cjs');
const CHECKED = [
  'clock-and-latency',
  'query-parameter-names',
  'max-page-size',
  'accepted-clock-skew',
  'bad-signature',
  'replayed-nonce',
  'list-order',
  'legacy-create-va-path',
];
const folder = mkdtempSync(join(tmpdir(), 'rampflow-probe-'));

function runCli(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const { RAMP_ASSUMPTIONS_FILE: _file, RECONCILE_LIST_ORDER: _order, ...inherited } = process.env;
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, 'probe', ...args],
      { env: { ...inherited, ...env }, timeout: 60_000 },
      (error, stdout, stderr) => {
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr });
      },
    );
  });
}

function statuses(report: ProbeReport): Record<string, string> {
  return Object.fromEntries(
    report.lines.filter((line) => CHECKED.includes(line.check)).map((line) => [line.check, line.status]),
  );
}

async function withSandbox<T>(variants: string[], body: (sandbox: Sandbox) => Promise<T>): Promise<T> {
  const sandbox = await createSandbox({ partners: [PARTNER], ...variantOptions(variants) });
  try {
    return await body(sandbox);
  } finally {
    await sandbox.close();
  }
}

// Each CLI case starts a child process, which takes seconds on a loaded machine.
describe('rampflow probe against the default sandbox', { timeout: 120_000 }, () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await createSandbox({ partners: [PARTNER] });
  });
  afterAll(async () => {
    await sandbox.close();
  });
  const env = () => ({ RAMP_BASE_URL: sandbox.url, RAMP_API_KEY: PARTNER.apiKey, RAMP_API_SECRET: PARTNER.apiSecret });

  it('prints every checked line held and exits 0; --create says so first', async () => {
    const result = await runCli(['--create'], env());
    expect(result.stderr).toMatch(
      /^rampflow probe: --create will create two test customers .* sandbox deployment only\n$/,
    );
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split('\n');
    for (const check of CHECKED)
      expect(
        lines.find((line) => line.startsWith(`${check} `)),
        check,
      ).toMatch(new RegExp(`^${check} +held: `));
    expect(lines.filter((line) => / differs: /.test(line))).toEqual([]);
    expect(lines.at(-1)).toBe('every assumption checked held');
    expect(result.stdout).not.toContain(PARTNER.apiSecret);
  });

  it('--json gives the same report, with the lines it could not check and why', async () => {
    const result = await runCli(
      ['--json', '--webhook-url', `${sandbox.url}/webhooks/ramp/a-secret-token-in-the-path`],
      env(),
    );
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as {
      held: boolean;
      lines: { check: string; status: string; detail: string }[];
      overrides: object;
    };
    expect(report.held).toBe(true);
    expect(report.overrides).toEqual({});
    expect(report.lines.find((line) => line.check === 'callback-url')).toMatchObject({
      status: 'unchecked',
      detail: expect.stringMatching(
        /no call that makes the service deliver a test event; this machine reached it \(HTTP \d{3} in \d+ ms\)/,
      ),
    });
    expect(report.lines.filter((line) => line.status === 'unchecked').every((line) => line.detail.length > 0)).toBe(
      true,
    );
    expect(result.stdout).not.toContain('a-secret-token-in-the-path');
    expect(result.stdout).not.toContain(PARTNER.apiSecret);
  });

  it('exits 2 with one line when the service refuses the credentials', async () => {
    const result = await runCli([], { ...env(), RAMP_API_SECRET: 'a-wrong-secret-value' });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(
      /^rampflow probe: the service refused the credentials \(HTTP 422 UNAUTHORISED\): check RAMP_API_KEY and RAMP_API_SECRET\n$/,
    );
    expect(result.stderr).not.toContain('a-wrong-secret-value');
  });
});

describe.each([
  {
    variant: 'query-parameters=snake_case',
    check: 'query-parameter-names',
    override: {
      queryParameterNames: expect.objectContaining({
        externalId: 'external_id',
        customerId: 'customer_id',
        pageNum: 'page_num',
        pageSize: 'page_size',
      }),
    },
  },
  { variant: 'max-page-size=37', check: 'max-page-size', override: { maxPageSize: 37 } },
  { variant: 'accepted-skew=8', check: 'accepted-clock-skew', override: { clockSkewToleranceMs: expect.any(Number) } },
  { variant: 'list-order=oldest-first', check: 'list-order', override: { listOrder: 'unknown' } },
  {
    variant: 'legacy-create-va-path=/old/create-va',
    check: 'legacy-create-va-path',
    override: { legacyCreateVaPath: '/old/create-va' },
  },
])('the sandbox with --variant $variant', ({ variant, check, override }) => {
  it(`differs on ${check} alone, and holds everywhere with the override it prints`, async () => {
    await withSandbox([variant], async (sandbox) => {
      const options = { baseUrl: sandbox.url, ...PARTNER, create: true };
      const report = await runProbe(options);
      const expected = Object.fromEntries(CHECKED.map((name) => [name, name === check ? 'differs' : 'held']));
      expect(statuses(report)).toEqual(expected);
      expect(report.held).toBe(false);
      expect(report.overrides).toEqual(override);

      const file = join(folder, `${check}.json`);
      writeFileSync(file, JSON.stringify(report.overrides));
      const again = await runProbe({ ...options, assumptions: loadAssumptionsFile(file) });
      expect(statuses(again)).toEqual(Object.fromEntries(CHECKED.map((name) => [name, 'held'])));
      expect(again.held).toBe(true);
    });
  });
});

it("the accepted-skew override keeps the client's correction well inside what the service accepts", async () => {
  await withSandbox(['accepted-skew=8'], async (sandbox) => {
    const report = await runProbe({ baseUrl: sandbox.url, ...PARTNER });
    expect(report.overrides.clockSkewToleranceMs).toBeGreaterThanOrEqual(1_000);
    expect(report.overrides.clockSkewToleranceMs).toBeLessThanOrEqual(2_000);
  });
});
