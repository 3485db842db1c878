/**
 * A deposit's kind comes from where its money came in, which only a detail read names (a virtual
 * account: onramp; a deposit address: offramp). A list item, as reconciliation passes it, names
 * neither, and its currency is only a guess: once a detail record has named the kind, a later list
 * item does not overturn it.
 */
import { describe, expect, it } from 'vitest';
import { DepositLedger } from '../../workflows/deposit/ledger';
import type { DepositRecord } from '../../workflows/common/records';

/** An offramp deposit in a stablecoin outside the currencies the guess knows (USDT, USDC). */
const detail: DepositRecord = {
  id: 'dep-1',
  customerId: 'cus-1',
  status: 'RECEIVED',
  amount: '50.000000',
  currency: 'PYUSD',
  depositAddressId: 'da-1',
};
const listItem = (status: string): DepositRecord => ({
  id: 'dep-1',
  customerId: 'cus-1',
  status,
  amount: '50.000000',
  currency: 'PYUSD',
});

describe("a deposit's kind", () => {
  it("is decided by the detail record and kept against a list item's guess", () => {
    const ledger = new DepositLedger('dep-1', undefined);
    ledger.takeOwnRecord(detail);
    expect(ledger.state.kind).toBe('OFFRAMP');
    ledger.applyDeposit(listItem('CONFIRMED'));
    expect(ledger.state).toMatchObject({ status: 'CONFIRMED', kind: 'OFFRAMP' });
  });

  it("is kept from the starter's detail record too", () => {
    const ledger = new DepositLedger('dep-1', detail);
    ledger.applyDeposit(listItem('CONFIRMED'));
    expect(ledger.state.kind).toBe('OFFRAMP');
  });

  it('is guessed from the currency only until a record names it', () => {
    const ledger = new DepositLedger('dep-1', listItem('RECEIVED'));
    expect(ledger.state.kind).toBe('ONRAMP');
    ledger.takeOwnRecord(detail);
    expect(ledger.state.kind).toBe('OFFRAMP');
  });
});
