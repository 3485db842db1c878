/**
 * An operator's update sent again, with the same update id, while the server answers "not now"; never
 * sent again on a refusal or on a "no". The handle is a plain object standing for the server's answers
 * (as the SDK hands them over); test/faults/rate-limit.test.ts meets the real ones under load.
 */
import { WorkflowUpdateFailedError, ServiceError, WorkflowUpdateRPCTimeoutOrCancelledError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { executeUpdateOnce, isNotNow } from '../../client/update-once';
import { retryUpdate as retry } from '../../workflows/common/messages';

const QUICK = { attempts: 5, firstDelayMs: 1 };

/** A gRPC error as @grpc/grpc-js raises it: code, details and metadata. */
function grpcError(code: number, details: string): Error {
  return Object.assign(new Error(`${code} ${details}`), { code, details, metadata: {} });
}

const workflowTaskFailed = () =>
  new ServiceError('Workflow Update failed', {
    cause: grpcError(9, 'Unable to perform workflow execution update due to unexpected workflow task failure.'),
  });

/** A handle whose first sends fail with `failures` (in order), then answers; it records every send's options. */
function handleAnswering(failures: Error[]) {
  const sends: { updateId?: string; args: unknown[] }[] = [];
  return {
    sends,
    handle: {
      executeUpdate: async (_update: unknown, options: { updateId?: string; args: unknown[] }) => {
        sends.push(options);
        const failure = failures.shift();
        if (failure) throw failure;
        return { resumed: 'CREATING_CUSTOMER' };
      },
    } as never,
  };
}

describe('executeUpdateOnce', () => {
  it('sends again, with the same update id, after a workflow task failure aborted the update', async () => {
    const { handle, sends } = handleAnswering([workflowTaskFailed(), workflowTaskFailed()]);
    await expect(executeUpdateOnce(handle, retry, [{ bulk: true }], QUICK)).resolves.toEqual({
      resumed: 'CREATING_CUSTOMER',
    });
    expect(sends).toHaveLength(3);
    expect(new Set(sends.map((send) => send.updateId)).size).toBe(1);
    expect(sends[0]!.updateId).toMatch(/^[0-9a-f-]{36}$/);
    expect(sends.every((send) => JSON.stringify(send.args) === '[{"bulk":true}]')).toBe(true);
  });

  it('sends again after an update call that timed out, and after a frontend still busy beyond the SDK re-sends', async () => {
    const timedOut = new WorkflowUpdateRPCTimeoutOrCancelledError('Workflow update call timeout or cancelled', {
      cause: grpcError(4, 'deadline exceeded'),
    });
    const busy = new ServiceError('Workflow Update failed', { cause: grpcError(8, 'namespace rate limit exceeded') });
    const { handle, sends } = handleAnswering([timedOut, busy]);
    await expect(executeUpdateOnce(handle, retry, [{}], QUICK)).resolves.toEqual({ resumed: 'CREATING_CUSTOMER' });
    expect(sends).toHaveLength(3);
  });

  it('gives up after its attempts, with the last answer', async () => {
    const { handle, sends } = handleAnswering(Array.from({ length: 9 }, workflowTaskFailed));
    await expect(executeUpdateOnce(handle, retry, [{}], QUICK)).rejects.toThrow('Workflow Update failed');
    expect(sends).toHaveLength(QUICK.attempts);
  });

  it('never sends again what the workflow refused, or what the server said no to', async () => {
    const refused = new WorkflowUpdateFailedError(
      'Workflow Update failed',
      ApplicationFailure.create({ message: 'nothing to retry: the workflow is not in NEEDS_ATTENTION' }),
    );
    const denied = new ServiceError('Workflow Update failed', { cause: grpcError(7, 'Request unauthorized.') });
    for (const no of [refused, denied, new Error('something else')]) {
      const { handle, sends } = handleAnswering([no]);
      await expect(executeUpdateOnce(handle, retry, [{}], QUICK)).rejects.toBe(no);
      expect(sends).toHaveLength(1);
    }
  });

  it('reads "not now" only from the codes that mean it', () => {
    expect(isNotNow(workflowTaskFailed())).toBe(true);
    expect(isNotNow(new ServiceError('Workflow Update failed', { cause: grpcError(14, 'unavailable') }))).toBe(true);
    expect(isNotNow(new ServiceError('Workflow Update failed', { cause: grpcError(3, 'invalid argument') }))).toBe(
      false,
    );
    expect(isNotNow(new ServiceError('Workflow Update failed'))).toBe(false);
  });
});
