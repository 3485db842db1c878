/** The RampError a call failed with; fails the test when the call succeeds or throws anything else. */
import { RampError } from '../../../ramp/errors';

export async function caught(promise: Promise<unknown>): Promise<RampError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof RampError) return error;
    throw error;
  }
  throw new Error('expected the call to fail');
}
