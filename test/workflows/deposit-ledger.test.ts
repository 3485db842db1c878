/**
 * A deposit's plain data (workflows/deposit/ledger.ts, workflows/deposit/carry.ts), without Temporal:
 * which hint is news (the run reads only news, so a claim of nothing new costs no read), how a box
 * turns away an id a read refused, and that what a run carries comes back as it was in the next run.
 */
import { ApplicationFailure } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { AppliedKeys, type DepositRecord, type TradeRecord } from '../../workflows/common/records';
import { journeyWorkflowId } from '../../workflows/common/messages';
import { carry, nextRunInput, takeUpCarried } from '../../workflows/deposit/carry';
import { DepositHints, DepositJourneyLink, DepositLedger } from '../../workflows/deposit/ledger';
import { DepositStepClock } from '../../workflows/common/waiting';

const deposit = (status: string, kind: 'ONRAMP' | 'OFFRAMP' = 'ONRAMP'): DepositRecord => ({
  id: 'dep-1',
  customerId: 'cus-1',
  status,
  amount: '50.00',
  currency: 'AUD',
  ...(kind === 'ONRAMP' ? { virtualAccountId: 'va-1' } : { depositAddressId: 'da-1' }),
});
const trade = (id: string, status: string, depositId = 'dep-1'): TradeRecord => ({
  id,
  status,
  depositId,
  fromAmount: '50.00',
  fromCurrency: 'AUD',
  toAmount: '33.00',
  toCurrency: 'USDC',
});

/** A ledger holding `record`, and its hints. */
function held(record: DepositRecord): { ledger: DepositLedger; hints: DepositHints } {
  const ledger = new DepositLedger('dep-1', undefined);
  ledger.takeOwnRecord(record);
  return { ledger, hints: new DepositHints('dep-1', ledger) };
}

describe("a deposit's hints", () => {
  it('find a deposit claim news only while it moves the deposit forward and no trade says more', () => {
    const { ledger, hints } = held(deposit('RECEIVED'));
    hints.noteDeposit({ id: 'dep-2', status: 'CONFIRMED' });
    expect(hints.claimNews()).toBe(false);
    hints.noteDeposit({ id: 'dep-1', status: 'RECEIVED' });
    expect(hints.claimNews()).toBe(false);
    hints.noteDeposit({ id: 'dep-1', status: 'CONFIRMED' });
    expect(hints.depositClaimIsNews()).toBe(true);
    ledger.applyTrade(trade('tr-1', 'CREATED'));
    expect(hints.depositClaimIsNews()).toBe(false);
  });

  it('find a trade claim news until the deposit holds that trade at the claimed status, and refuse an id a read turned away', () => {
    const { ledger, hints } = held(deposit('CONFIRMED'));
    hints.noteTrade({ id: 'tr-1', status: 'SETTLED' });
    expect(hints.nextTradeClaim()).toBe('tr-1');
    ledger.applyTrade(trade('tr-1', 'SETTLED'));
    expect(hints.nextTradeClaim()).toBeUndefined();

    const other = held(deposit('CONFIRMED')).hints;
    other.noteTrade({ id: 'forged', status: 'SETTLED' });
    other.refuseTrade('forged');
    other.noteTrade({ id: 'forged', status: 'SETTLED' });
    expect(other.claimNews()).toBe(false);
  });

  it('find a payment claim news only for an offramp whose payout has not settled', () => {
    const onramp = held(deposit('CONFIRMED')).hints;
    onramp.notePayment({ id: 'pay-1', status: 'COMPLETED' });
    expect(onramp.nextPaymentClaim()).toBeUndefined();
    const offramp = held(deposit('CONFIRMED', 'OFFRAMP')).hints;
    offramp.notePayment({ id: 'pay-1', status: 'COMPLETED' });
    expect(offramp.nextPaymentClaim()).toBe('pay-1');
    offramp.clearPayment('pay-1');
    expect(offramp.claimNews()).toBe(false);
  });
});

describe("a deposit's journey link", () => {
  it('names the journey of the owner it learns, and is served once the journey heard of the deposit', () => {
    const link = new DepositJourneyLink();
    link.learnJourney('ext-1');
    expect(link.journeyId).toBe(journeyWorkflowId('ext-1'));
    link.noteServedIfReported();
    expect(link.served).toBe(false);
    link.reportedStage = 'RECEIVED';
    link.noteServedIfReported();
    expect(link.served).toBe(true);
  });
});

describe('what a deposit carries to its next run', () => {
  it('comes back as it was, and the next input drops the starter record and the reversal mark', () => {
    const { ledger, hints } = held(deposit('CONFIRMED', 'OFFRAMP'));
    ledger.applyTrade(trade('tr-1', 'SETTLED'));
    hints.notePayment({ id: 'pay-1', status: 'COMPLETED' });
    hints.noteTrade({ id: 'forged', status: 'SETTLED' });
    hints.refuseTrade('forged');
    const link = new DepositJourneyLink();
    link.learnJourney('ext-1');
    link.reportedStage = 'CONFIRMED';
    link.noteServedIfReported();
    const clock = new DepositStepClock(1_700_000_000_000);
    const carried = carry(
      {
        ledger,
        link,
        clock,
        applied: new AppliedKeys(['DEPOSIT_APPROVED/dep-1']),
        reporter: { carry: () => ({ run: 'r1', offered: 3 }) },
        hints,
      },
      'TRADE_SETTLED',
    );
    // A carried deposit travels as JSON.
    const next = JSON.parse(JSON.stringify(carried)) as typeof carried;
    expect(next).toMatchObject({
      version: 2,
      stage: 'TRADE_SETTLED',
      stepDeadlineAt: 1_700_000_000_000,
      appliedEventKeys: ['DEPOSIT_APPROVED/dep-1'],
      reports: { run: 'r1', offered: 3 },
    });

    const nextLedger = new DepositLedger('dep-1', undefined);
    const nextLink = new DepositJourneyLink();
    takeUpCarried(next, nextLedger, nextLink);
    const nextHints = new DepositHints('dep-1', nextLedger, next.hints);
    expect(nextLedger).toMatchObject({
      deposit: ledger.deposit,
      trade: ledger.trade,
      ownRecordRead: true,
      confirmedOnce: true,
      state: ledger.state,
    });
    expect(nextLink).toEqual(link);
    expect(nextHints.carry()).toEqual(hints.carry());
    // The refused id stays refused in the next run.
    nextHints.noteTrade({ id: 'forged', status: 'SETTLED' });
    expect(nextHints.nextTradeClaim()).toBeUndefined();

    expect(
      nextRunInput({ depositId: 'dep-1', externalId: 'ext-1', deposit: deposit('RECEIVED'), reversalOf: 'COMPLETED' }),
    ).toEqual({ depositId: 'dep-1', externalId: 'ext-1' });
  });

  it('refuses, not retryable, a carry of version 1: 0.x deposits drain on 0.x workers and never reach 1.0', () => {
    const { ledger, hints } = held(deposit('CONFIRMED'));
    const carried = carry(
      {
        ledger,
        link: new DepositJourneyLink(),
        clock: new DepositStepClock(undefined),
        applied: new AppliedKeys([]),
        reporter: { carry: () => ({ run: 'r1', offered: 0 }) },
        hints,
      },
      'CONFIRMED',
    );
    const version1 = { ...carried, version: 1, verifiesPayloads: true } as unknown as typeof carried;
    let refusal: unknown;
    try {
      takeUpCarried(version1, new DepositLedger('dep-1', undefined), new DepositJourneyLink());
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(ApplicationFailure);
    expect(refusal).toMatchObject({ type: 'CarriedDepositUnsupported', nonRetryable: true });
  });
});
