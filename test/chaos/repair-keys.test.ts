/**
 * The chaos run prints each reconciliation repair's key, read from the passes' histories: checked on
 * a recorded pass (v0.8.0's corpus), which repaired one deposit's missed RECEIVED.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { describe, expect, it } from 'vitest';
import { repairKeys } from '../../chaos/play';
import { HISTORIES_DIR } from '../../dev/replay-corpus';

describe("a reconciliation pass's repairs", () => {
  it('are read from its history: the deposit it delivered to, and the status it brought it level with', () => {
    const history = historyFromJSON(
      JSON.parse(readFileSync(join(HISTORIES_DIR, 'v0.8.0', 'reconciliation.json'), 'utf8')),
    );
    expect(repairKeys(history.events ?? [])).toEqual([
      'RECONCILE/DEPOSIT/d5e4ef3f-42f2-4d65-9b83-8c2749c6b3d4/RECEIVED',
    ]);
  });

  it('are none in a history that sent none', () => {
    const history = historyFromJSON(
      JSON.parse(readFileSync(join(HISTORIES_DIR, 'v0.8.0', 'payout-settled.json'), 'utf8')),
    );
    expect(repairKeys(history.events ?? [])).toEqual([]);
  });
});
