/**
 * The journey's `signup` update (workflows/common/messages.ts): signup in one round trip. Sent with the
 * journey's start (update-with-start) or to the journey already running for the externalId, it waits,
 * at most the wait the caller asked (capped), until the journey knows the customer's KYC link, has
 * moved past AWAITING_KYC, or has parked or ended; then answers the stage and the link if known.
 *
 * The link is only ever the service's own record (ensureCustomer's or a poll's read, applied by the
 * journey), never a delivery's payload: the handler reads the journey's state and changes nothing.
 *
 * Replay: the timer of the handler's bounded wait is a command only a run that received this update
 * issues. Histories recorded before the update existed never delivered it, so the handler never runs
 * when they replay and they replay with the same commands; registering a handler issues none.
 */
import { condition, setHandler } from '@temporalio/workflow';
import { checkSignupRequest, describeIssues } from '../common/contract-checks';
import { SIGNUP_WAIT_DEFAULT_SECONDS, SIGNUP_WAIT_MAX_SECONDS } from '../../config/signup-wait';
import {
  signupUpdate,
  type JourneyStage,
  type JourneyState,
  type SignupRequest,
  type SignupResult,
} from '../common/messages';

/** Stages where waiting longer for the link is pointless: past KYC, parked for an operator, or ended. */
const NOTHING_TO_WAIT_FOR: ReadonlySet<JourneyStage> = new Set([
  'SETTING_UP_RAMPS',
  'AWAITING_ACCOUNTS',
  'ACTIVE',
  'NEEDS_ATTENTION',
  'REJECTED',
  'CLOSED',
]);

/** Registers the `signup` update on the journey whose (live, mutated in place) state is `state`. */
export function registerSignup(state: JourneyState): void {
  setHandler(signupUpdate, (request) => answerSignup(state, request), { validator: validateSignup });
}

export async function answerSignup(state: JourneyState, request: SignupRequest = {}): Promise<SignupResult> {
  const waitSeconds = Math.min(
    Math.max(request.waitSeconds ?? SIGNUP_WAIT_DEFAULT_SECONDS, 0),
    SIGNUP_WAIT_MAX_SECONDS,
  );
  const answerable = () => state.customer.kycLink !== undefined || NOTHING_TO_WAIT_FOR.has(state.stage);
  if (!answerable() && waitSeconds > 0) await condition(answerable, waitSeconds * 1000);
  const { kycLink } = state.customer;
  return { stage: state.stage, waitingFor: state.waitingFor, ...(kycLink !== undefined ? { kycLink } : {}) };
}

/** Refuses (before anything enters the history) a request the contract does not allow. */
function validateSignup(request: SignupRequest = {}): void {
  const checked = checkSignupRequest(request);
  if (!checked.ok) throw new Error(`invalid signup request: ${describeIssues(checked.issues)}`);
}
