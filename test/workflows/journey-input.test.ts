import { describe, expect, it } from 'vitest';
import { JourneyInputSchema } from '../../workflows/schemas';

const customer = { externalId: 'user-42', realName: 'Ada Lovelace', email: 'ada@example.com' };
const issues = (input: unknown) => {
  const result = JourneyInputSchema.safeParse(input);
  return result.success ? [] : result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
};

describe('JourneyInputSchema', () => {
  // A default filled in here would be carried for the journey's life: the workflow resolves them (workflows/common/timings.ts).
  it('keeps only the timings given', () => {
    expect(JourneyInputSchema.parse({ customer }).timings).toBeUndefined();
    expect(JourneyInputSchema.parse({ customer, timings: { pollIntervalSeconds: 5 } }).timings).toEqual({
      pollIntervalSeconds: 5,
    });
  });

  it('takes a source account on an AUD onramp only', () => {
    const source = { bsbNumber: '062000', accountNumber: '12345678' };
    expect(
      issues({ customer, onramp: { currency: 'AUD', cryptoAddress: { address: '0xabc' }, audSourceAccount: source } }),
    ).toEqual([]);
    expect(
      issues({ customer, onramp: { currency: 'EUR', cryptoAddress: { address: '0xabc' }, audSourceAccount: source } }),
    ).toEqual(['onramp.audSourceAccount: only an AUD onramp takes a source account']);
  });

  it('names each bad field', () => {
    expect(
      issues({
        customer: { ...customer, externalId: 'has space', email: 'nope' },
        offramp: { currency: 'usdt', network: 'ETH', bankAccount: {} },
      }),
    ).toEqual([
      'customer.externalId: letters, digits and . _ : @ - only, at most 128',
      'customer.email: Invalid email address',
      'offramp.currency: a crypto currency code such as USDT',
      'offramp.bankAccount.accountNo: Invalid input: expected string, received undefined',
    ]);
  });
});
