/**
 * Histories the chaos run found failing their replay (test/fixtures/chaos-findings/README.md), replayed
 * on the current code: each still fails as the run saw it. A finding that starts replaying fails this
 * test on purpose: move its history into the next release's replay corpus and delete it here.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { Worker } from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import { describe, expect, it } from 'vitest';
import { WORKFLOW_BUNDLE_PATHS } from '../../workers/worker';
import { expectNondeterminism } from '../support/quiet-temporal-runtime';

const FINDINGS = join(__dirname, '..', 'fixtures', 'chaos-findings');

describe('the chaos run’s open nondeterminism findings', () => {
  it('the journey whose update completed before its upsert on a fresh worker still fails its replay at that event', async () => {
    expectNondeterminism();
    const history = historyFromJSON(
      JSON.parse(readFileSync(join(FINDINGS, 'journey-update-completed-before-upsert.json'), 'utf8')),
    );
    const workflowId = history.events![0]!.workflowExecutionStartedEventAttributes!.workflowId!;
    const replay = Worker.runReplayHistory(
      { ...WORKFLOW_BUNDLE_PATHS, replayName: 'chaos-finding-update-order' },
      history,
      workflowId,
    );
    await expect(replay).rejects.toBeInstanceOf(DeterminismViolationError);
    await expect(replay).rejects.toThrow(
      /UpsertWorkflowSearchAttributesMachine does not handle HistoryEvent\(id: 17, WorkflowExecutionUpdateCompleted\)/,
    );
  }, 120_000);
});
