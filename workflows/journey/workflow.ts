/**
 * The customer journey, `customer/<externalId>`: creation, KYC, autoramp setup, account approvals,
 * then ACTIVE for the customer's life. Each deposit runs as its own workflow (`deposit/<id>`, started
 * by whoever hears of it first) and reports its progress here; the journey keeps a bounded view.
 *
 * Rules (DESIGN, "Workflows"): every wait has an event, a poll and a deadline; failures a retry cannot
 * fix park the journey in NEEDS_ATTENTION for an operator; events are applied at most once and state
 * only moves forward; the journey continues as new before its history grows large, carrying a state
 * of fixed size. An ACTIVE journey with nothing happening runs no timer and makes no call.
 *
 * The run's state, steps and handlers are one object, `run` (workflows/journey/run.ts).
 */
import { setHandler } from '@temporalio/workflow';
import {
  closeCustomerUpdate,
  customerEventSignal,
  depositAddressEventSignal,
  depositProgressSignal,
  depositReportsUpdate,
  handOverSignal,
  type JourneyStage,
  journeyStateQuery,
  signupUpdate,
  virtualAccountEventSignal,
} from '../common/messages';
import type { JourneyInput } from '../schemas';
import { ParkRequest } from '../common/calls';
import { validatedStartInput } from '../common/checks';
import type { CarriedJourney } from './carry';
import {
  ContinueAsNewRequest,
  JourneyEnded,
  type JourneyOutcome,
  JourneyRun,
  type JourneyStep,
  validateSignup,
} from './run';

export type { JourneyOutcome } from './run';

export async function customerJourney(
  initialInput: JourneyInput,
  carriedFromLastRun?: CarriedJourney,
): Promise<JourneyOutcome> {
  // Checked on the first run only: a run that continued as new carries input this code already checked.
  const input = carriedFromLastRun ? initialInput : validatedStartInput('customerJourney', initialInput);
  // Its timings, its ledger, its operator desk (with the `retry` and `cancel` updates) and its partner
  // events, taken up from what the last run carried.
  const run = new JourneyRun(input, carriedFromLastRun);

  // Every handler is set before the first await: signals buffered before the run began apply in this order.
  setHandler(customerEventSignal, run.onCustomerEvent);
  setHandler(virtualAccountEventSignal, run.onAccountEvent);
  setHandler(depositAddressEventSignal, run.onAccountEvent);
  setHandler(depositProgressSignal, run.onDepositProgress);
  setHandler(depositReportsUpdate, run.takeDepositReports, { validator: run.validateDepositReports });
  setHandler(journeyStateQuery, run.describe);
  setHandler(signupUpdate, run.answerSignup, { validator: validateSignup });
  setHandler(closeCustomerUpdate, run.close, { validator: run.validateClose });
  setHandler(handOverSignal, run.onHandOver);

  // Each stage's step: it runs the stage and returns the next.
  const steps: Partial<Record<JourneyStage, JourneyStep>> = {
    CREATING_CUSTOMER: () => run.createCustomer(),
    AWAITING_KYC: () => run.awaitKyc(),
    SETTING_UP_RAMPS: () => run.setUpRamps(),
    // The approvals, then the AUD source account's whitelisting (awaitWhitelist), under one deadline.
    AWAITING_ACCOUNTS: () => run.awaitAccounts(),
    ACTIVE: () => run.stayActive(),
  };

  // A step that parks waits for an operator, who resumes it (perhaps at an earlier stage) or ends it.
  let stage = run.firstStage;
  try {
    for (;;) {
      let parked: ParkRequest;
      try {
        const next = await run.runStep(steps[stage]!);
        if (next !== stage) run.ledger.forgetDeadline();
        stage = next;
        continue;
      } catch (error) {
        if (!(error instanceof ParkRequest)) throw error;
        parked = error;
      }
      stage = await run.parkUntilDecided(stage, parked);
    }
  } catch (error) {
    // ACTIVE, a wait or a park whose history has grown, or told to hand over: the next run goes on from here.
    if (error instanceof ContinueAsNewRequest) return await run.continueAsNew(error.parking);
    if (!(error instanceof JourneyEnded)) throw error;
    return await run.end(error.outcome);
  }
}
