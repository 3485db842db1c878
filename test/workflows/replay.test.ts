/**
 * Recorded histories (npm run histories:record) replayed against the current workflow code: a change
 * that would break journeys or deposits already running in production fails here. When a change of
 * shape is intended, guard it with patched() or re-record the fixtures with the change.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { Worker } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import { WORKFLOWS_PATH } from '../../workers/worker';
import { PROJECT_ROOT } from '../support/run';

const FIXTURES = join(PROJECT_ROOT, 'test', 'fixtures', 'histories');

describe('replaying recorded histories', () => {
  it('replays every recorded journey and deposit history without nondeterminism', async () => {
    const files = readdirSync(FIXTURES).filter((file) => file.endsWith('.json'));
    expect(files.sort()).toEqual(['deposit-offramp.json', 'deposit-onramp.json', 'journey.json']);
    // Each replays under the workflow ID it was recorded with: workflows check their ID against their input.
    const histories = files.map((file) => {
      const history = historyFromJSON(JSON.parse(readFileSync(join(FIXTURES, file), 'utf8')));
      return { workflowId: history.events?.[0]?.workflowExecutionStartedEventAttributes?.workflowId ?? file, history };
    });

    const failures: string[] = [];
    for await (const result of Worker.runReplayHistories({ workflowsPath: WORKFLOWS_PATH, replayName: 'rampflow-replay' }, histories)) {
      if (result.error) failures.push(`${result.workflowId}: ${result.error.message}`);
    }
    expect(failures).toEqual([]);
  }, 60_000);
});
