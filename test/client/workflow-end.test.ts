/**
 * workflowEndOf: every way a workflow ends without completing, as the SDK's result() reports it
 * (already decoded), turned into {status, type, message, fields}; details that are not the known
 * safe fields are left out.
 */
import { WorkflowFailedError } from '@temporalio/client';
import {
  ActivityFailure,
  ApplicationFailure,
  CancelledFailure,
  RetryState,
  TerminatedFailure,
  TimeoutFailure,
  TimeoutType,
} from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { endFieldLines, endJson, endLine, workflowEndOf } from '../../client/workflow-end';

const failed = (cause: Error | undefined) =>
  new WorkflowFailedError('Workflow execution failed', cause, RetryState.NON_RETRYABLE_FAILURE);

describe('workflowEndOf', () => {
  it('reads an ApplicationFailure: its type, message and issues, and nothing else of its details', () => {
    const issues = [{ path: 'customer.email', message: 'Invalid email address' }];
    const failure = ApplicationFailure.create({
      type: 'InvalidStartInput',
      message: 'invalid customerJourney input: customer.email: Invalid email address',
      details: [{ issues, input: { email: 'grace@example.org' } }, 'grace@example.org'],
    });
    const end = workflowEndOf(failed(failure));
    expect(end).toEqual({
      status: 'FAILED',
      type: 'InvalidStartInput',
      message: 'invalid customerJourney input: customer.email: Invalid email address',
      fields: { issues },
    });
    expect(endLine('journey user-42', end)).toBe(
      'journey user-42 failed: InvalidStartInput: invalid customerJourney input: customer.email: Invalid email address',
    );
    expect(endFieldLines(end)).toEqual(['  issue: customer.email: Invalid email address']);
    expect(endJson(end)).toEqual({
      status: 'FAILED',
      failure: { type: 'InvalidStartInput', message: end.message, issues },
    });
    expect(JSON.stringify(endJson(end))).not.toContain('grace@example.org');
  });

  it('drops issues that are not {path, message}', () => {
    expect(
      workflowEndOf(
        failed(ApplicationFailure.create({ type: 'X', message: 'm', details: [{ issues: [{ value: 'secret' }] }] })),
      ).fields,
    ).toEqual({});
  });

  it('reads a termination, a timeout and a cancellation', () => {
    expect(workflowEndOf(failed(new TerminatedFailure('fraud review')))).toEqual({
      status: 'TERMINATED',
      type: 'Terminated',
      message: 'fraud review',
      fields: {},
    });
    expect(
      workflowEndOf(failed(new TimeoutFailure('Workflow execution timed out', undefined, TimeoutType.START_TO_CLOSE))),
    ).toEqual({ status: 'TIMED_OUT', type: 'WorkflowTimedOut', message: 'Workflow execution timed out', fields: {} });
    expect(workflowEndOf(failed(new CancelledFailure('Workflow canceled')))).toEqual({
      status: 'CANCELLED',
      type: 'Cancelled',
      message: 'Workflow canceled',
      fields: {},
    });
    expect(endLine('payout p-1', workflowEndOf(failed(new TerminatedFailure('stuck'))))).toBe(
      'payout p-1 was terminated: Terminated: stuck',
    );
  });

  it('names what caused a wrapped failure, and copes with none', () => {
    const activity = new ActivityFailure(
      'Activity task failed',
      'createCustomer',
      '1',
      RetryState.MAXIMUM_ATTEMPTS_REACHED,
      'worker',
      ApplicationFailure.create({ type: 'Unauthorised', message: 'bad key' }),
    );
    expect(workflowEndOf(failed(activity))).toEqual({
      status: 'FAILED',
      type: 'ActivityFailure',
      message: 'Activity task failed (Unauthorised: bad key)',
      fields: {},
    });
    expect(workflowEndOf(failed(undefined))).toEqual({
      status: 'FAILED',
      type: 'Failure',
      message: 'Workflow execution failed',
      fields: {},
    });
  });
});
