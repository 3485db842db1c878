/**
 * `rampflow journey` and `rampflow deposit` where no Temporal server is needed: help, and the
 * one-line errors a user meets before or instead of reaching Temporal.
 */
import { describe, expect, it } from 'vitest';
import { runRampflow, type RunResult } from '../support/run';

const SUBCOMMANDS = {
  journey: ['start', 'status', 'list', 'retry', 'cancel', 'close'],
  deposit: ['status', 'list', 'attach', 'retry', 'cancel'],
};

function expectFailure(result: RunResult, line: string): void {
  expect(result.stdout).toBe('');
  expect(result.stderr).toBe(`rampflow: ${line}\n`);
  expect(result.code).toBe(1);
}

describe('rampflow journey / deposit without a server', () => {
  // Four CLI processes start at once: on a busy 2-core machine that alone can pass the 20 s default.
  it(
    'lists every subcommand in the group help, and each subcommand has its own --help',
    { timeout: 60_000 },
    async () => {
      // Commander gives every command --help; these show the groups and the two with their own notes.
      const runs = [['journey'], ['deposit'], ['journey', 'start'], ['deposit', 'attach']];
      const results = await Promise.all(runs.map((args) => runRampflow([...args, '--help'])));
      results.forEach((result, at) => {
        expect(result.code, runs[at]!.join(' ')).toBe(0);
        expect(result.stdout).toMatch(new RegExp(`^Usage: rampflow ${runs[at]!.join(' ')} `));
      });
      for (const [at, group] of (['journey', 'deposit'] as const).entries()) {
        for (const name of SUBCOMMANDS[group]) expect(results[at]!.stdout).toMatch(new RegExp(`\\n {2}${name} `));
      }
      expect(results[2]!.stdout).toContain('rampflow journey start --input @signup.json --external-id user-42');
      expect(results[3]!.stdout).toMatch(/--content-type <type>/);
    },
  );

  it('reports a bad environment on one line per variable, without connecting', async () => {
    const result = await runRampflow(['journey', 'list'], {
      env: { ...process.env, TEMPORAL_ADDRESS: 'no-port-here' },
    });
    expect(result.stderr).toBe(
      'rampflow: invalid configuration:\n  TEMPORAL_ADDRESS: expected host:port, for example 127.0.0.1:7233\n',
    );
    expect(result.code).toBe(1);
  });

  it('says where it could not connect', { timeout: 40_000 }, async () => {
    // Port 1 on loopback refuses connections; the client gives up after its connect timeout.
    const result = await runRampflow(['journey', 'status', 'user-42'], {
      env: { ...process.env, TEMPORAL_ADDRESS: '127.0.0.1:1' },
    });
    expectFailure(result, 'cannot connect to Temporal at 127.0.0.1:1: Failed to connect before the deadline');
  });

  it('refuses --input that is not JSON or not an object', async () => {
    const notJson = await runRampflow(['journey', 'start', '--input', '{customer:']);
    expect(notJson.stderr).toMatch(/^rampflow: --input is not valid JSON: .+\n$/);
    expect(notJson.code).toBe(1);
    expectFailure(await runRampflow(['journey', 'start', '--input', '[1]']), '--input must be a JSON object');
    expectFailure(
      await runRampflow(['journey', 'start', '--input', '@/no/such/file.json']),
      '--input: cannot read /no/such/file.json: ENOENT',
    );
  });

  it('refuses a stage that does not exist, listing the stages', async () => {
    const result = await runRampflow(['journey', 'list', '--stage', 'STUCK']);
    expect(result.stderr).toMatch(
      /^error: option '--stage <stage>' argument 'STUCK' is invalid\. Allowed choices are CREATING_CUSTOMER, .*NEEDS_ATTENTION/,
    );
    expect(result.code).toBe(1);
  });
});
