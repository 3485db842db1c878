/**
 * What the bulk commands print, for what test/cli/bulk-cli.temporal.test.ts cannot stage on demand:
 * the progress line of a long run, and a summary with refusals and failures.
 */
import { describe, expect, it } from 'vitest';
import type { BulkProgress, BulkReport } from '../../client';
import { formatBulkReport, progressReporter } from '../../cli/bulk';

const retry = { verb: 'retry', noun: 'journey' } as const;

function progressOf(settled: number, listed: number): BulkProgress {
  return { listed, settled, matched: settled, done: settled, refused: 0, failed: 0, skipped: 0 };
}

describe('progressReporter', () => {
  it('prints every 50 workflows when they go fast, and never the last one (the summary says it)', () => {
    const lines: string[] = [];
    const report = progressReporter(
      retry,
      false,
      (line) => lines.push(line),
      () => 0,
    );
    for (let settled = 1; settled <= 120; settled++) report(progressOf(settled, 120));
    expect(lines).toEqual([
      'journey retry: 50 of 120 (done 50, refused 0, failed 0, skipped 0)\n',
      'journey retry: 100 of 120 (done 100, refused 0, failed 0, skipped 0)\n',
    ]);
  });

  it('prints at most once a second when they go slowly', () => {
    const lines: string[] = [];
    let clock = 0;
    const report = progressReporter(
      retry,
      true,
      (line) => lines.push(line),
      () => clock,
    );
    for (let settled = 1; settled <= 10; settled++) {
      clock += 400;
      report(progressOf(settled, 10));
    }
    // Past a second at 3 (1,200 ms), then at 6 (2,400 ms), then at 9 (3,600 ms).
    expect(lines.map((line) => line.split(' (done')[0])).toEqual([
      'journey retry (dry run): 3 of 10',
      'journey retry (dry run): 6 of 10',
      'journey retry (dry run): 9 of 10',
    ]);
  });
});

describe('formatBulkReport', () => {
  const base: BulkReport = {
    listed: 5,
    settled: 5,
    matched: 4,
    done: 2,
    refused: 1,
    failed: 1,
    skipped: 1,
    dryRun: false,
    wouldAct: [],
    refusals: [],
    failures: [],
  };

  it('says what was done, refused, failed and skipped, and names each refusal and failure', () => {
    const text = formatBulkReport(
      { verb: 'cancel', noun: 'deposit', scope: 'of customer user-42' },
      { errorType: 'Deadline' },
      {
        ...base,
        refusals: [{ id: 'd-1', reason: 'cancel refused by deposit d-1: it has already ended (COMPLETED)' }],
        failures: [{ id: 'd-2', error: 'no worker answered' }],
      },
    );
    expect(text).toBe(
      'cancelled 2 of 5 deposits at NEEDS_ATTENTION of customer user-42 with error type Deadline; refused 1 (moved on meanwhile), failed 1, skipped 1\n' +
        '  refused d-1: cancel refused by deposit d-1: it has already ended (COMPLETED)\n' +
        '  failed d-2: no worker answered\n',
    );
  });

  it('lists in a dry run what would be acted on, with the reason each is parked when known', () => {
    const text = formatBulkReport(
      retry,
      { stage: 'NEEDS_ATTENTION', errorType: 'Unauthorised' },
      {
        ...base,
        dryRun: true,
        matched: 1,
        done: 0,
        refused: 0,
        failed: 0,
        skipped: 4,
        wouldAct: [{ id: 'user-1', errorType: 'Unauthorised', reason: 'the service refused our credentials' }],
      },
    );
    expect(text).toBe(
      'dry run: would retry 1 of 5 journeys at NEEDS_ATTENTION with error type Unauthorised; nothing was changed\n' +
        '  user-1  the service refused our credentials\n',
    );
  });
});
