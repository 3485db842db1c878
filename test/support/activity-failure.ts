/** What an activity call failed with, checked to be the ApplicationFailure activities raise. */
import { ApplicationFailure } from '@temporalio/common';
import { expect } from 'vitest';

export async function failureOf(promise: Promise<unknown>): Promise<ApplicationFailure> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ApplicationFailure);
  return error as ApplicationFailure;
}
