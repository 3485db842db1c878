/**
 * The published schemas and the TypeScript types the code uses describe the same shapes. The checks
 * are types (expectTypeOf): a schema and its interface that drift apart fail `npm run typecheck`,
 * and this file's test then names which one.
 */
import { describe, expectTypeOf, it } from 'vitest';
import type { z } from 'zod';
import type { DepositLifecycleInput, DepositOutcome } from '../../workflows/deposit/workflow';
import type {
  DepositLifecycleInputSchema,
  DepositOutcomeSchema,
  DepositStateSchema,
  DepositSummarySchema,
  JourneyOutcomeSchema,
  JourneyStateSchema,
  SignalSchemas,
} from '../../workflows/schemas';
import type { JourneyOutcome } from '../../workflows/journey/workflow';
import type { DepositProgress, DepositState, DepositSummary, JourneyState } from '../../workflows/common/messages';
import type {
  CustomerRecord,
  DepositAddressRecord,
  DepositRecord,
  PaymentRecord,
  RampEvent,
  TradeRecord,
  VirtualAccountRecord,
} from '../../workflows/common/records';

type Out<S extends z.ZodType> = z.output<S>;
type Signal<K extends keyof typeof SignalSchemas> = Out<(typeof SignalSchemas)[K]>;
// The schema says `event` is a string (workflow code may not import ramp/'s list of names).
type Widened<R> = { [K in keyof RampEvent<R>]: K extends 'event' ? string : RampEvent<R>[K] };

describe('the published schemas match the types the code uses', () => {
  it('query answers', () => {
    expectTypeOf<Out<typeof JourneyStateSchema>>().toEqualTypeOf<JourneyState>();
    expectTypeOf<Out<typeof DepositStateSchema>>().toEqualTypeOf<DepositState>();
    expectTypeOf<Out<typeof DepositSummarySchema>>().toEqualTypeOf<DepositSummary>();
  });

  it('start inputs and results', () => {
    expectTypeOf<Out<typeof DepositLifecycleInputSchema>>().toEqualTypeOf<DepositLifecycleInput>();
    expectTypeOf<Out<typeof JourneyOutcomeSchema>>().toEqualTypeOf<JourneyOutcome>();
    expectTypeOf<Out<typeof DepositOutcomeSchema>>().toEqualTypeOf<DepositOutcome>();
  });

  it('signals', () => {
    expectTypeOf<Signal<'customerEvent'>>().toEqualTypeOf<Widened<CustomerRecord>>();
    expectTypeOf<Signal<'virtualAccountEvent'>>().toEqualTypeOf<Widened<VirtualAccountRecord>>();
    expectTypeOf<Signal<'depositAddressEvent'>>().toEqualTypeOf<Widened<DepositAddressRecord>>();
    expectTypeOf<Signal<'depositEvent'>>().toEqualTypeOf<Widened<DepositRecord>>();
    expectTypeOf<Signal<'tradeEvent'>>().toEqualTypeOf<Widened<TradeRecord>>();
    expectTypeOf<Signal<'paymentEvent'>>().toEqualTypeOf<Widened<PaymentRecord>>();
    expectTypeOf<Signal<'depositProgress'>>().toEqualTypeOf<DepositProgress>();
  });
});
