/** The receiver's pure parts: body parsing into a workflow start, the token, the source-IP policy, the callback URL check. */
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../config/env';
import { parseDelivery } from '../../webhooks/delivery';
import { checkCallbackUrl, redactCallbackUrl, RegistrationRefused } from '../../webhooks/registration';
import { tokenMatches } from '../../config/secret-token';
import { sourceIpPolicy } from '../../webhooks/source-ip';
import { customer, deposit, payment, trade } from '../ramp/support/records';

describe('parseDelivery', () => {
  it('maps an older name to the new one, so both deliveries share one workflow ID and key', () => {
    const newName = parseDelivery({ event: 'CUSTOMER_APPROVED', payload: customer });
    const oldName = parseDelivery({ event: 'user.approved', payload: customer });
    expect(newName).toMatchObject({ ok: true, workflowId: `event/CUSTOMER_APPROVED/${customer.id}` });
    expect(oldName).toMatchObject({ ok: true, workflowId: `event/CUSTOMER_APPROVED/${customer.id}` });
    if (!newName.ok || !oldName.ok) throw new Error('unreachable');
    expect(oldName.input.key).toBe(newName.input.key);
    expect(oldName.input.deliveredAs).toBe('user.approved');
    expect(newName.input.deliveredAs).toBeUndefined();
  });

  it('keeps only ids and a status from the payload: no kycLink, name, email or account numbers', () => {
    const parsed = parseDelivery({ event: 'CUSTOMER_APPROVED', payload: customer });
    if (!parsed.ok) throw new Error(parsed.reason);
    expect(parsed.input).toEqual({
      event: 'CUSTOMER_APPROVED',
      payloadId: customer.id,
      key: `CUSTOMER_APPROVED/${customer.id}`,
      resource: 'customer',
      hint: { status: 'CONFIRMED', externalId: 'ext-1' },
    });
    // The payload stays beside the input, for direct routing; only the input reaches a workflow.
    const approved = parseDelivery({ event: 'DEPOSIT_APPROVED', payload: deposit });
    if (!approved.ok) throw new Error(approved.reason);
    const serialised = JSON.stringify(approved.input);
    for (const secret of [
      customer.kycLink,
      customer.email,
      deposit.receiverVirtualAccount.accountNumber,
      deposit.txReference,
    ])
      expect(serialised).not.toContain(secret);
  });

  it("hints the ids the router compares: a trade's deposit, a payment's reference", () => {
    expect(parseDelivery({ event: 'trade.settled', payload: trade })).toMatchObject({
      ok: true,
      input: { event: 'TRADE_SETTLED', hint: { status: 'SETTLED', depositId: deposit.id } },
    });
    expect(parseDelivery({ event: 'PAYMENT_SETTLED', payload: payment })).toMatchObject({
      ok: true,
      input: { resource: 'payment', hint: { reference: 'tr-1' } },
    });
  });

  it('accepts an unknown event name with a well-formed envelope, with no resource (the workflow parks it)', () => {
    const parsed = parseDelivery({ event: 'ACCOUNT_FROZEN', payload: { id: 'x-1', anything: true } });
    expect(parsed).toMatchObject({
      ok: true,
      workflowId: 'event/ACCOUNT_FROZEN/x-1',
      input: { event: 'ACCOUNT_FROZEN', hint: {} },
    });
    if (parsed.ok) expect(parsed.input.resource).toBeUndefined();
  });

  it.each([
    ['no payload', { event: 'DEPOSIT_APPROVED' }],
    ['no payload id', { event: 'DEPOSIT_APPROVED', payload: { ...deposit, id: undefined } }],
    ['an empty payload id', { event: 'DEPOSIT_APPROVED', payload: { ...deposit, id: '' } }],
    ['a payload id with a space', { event: 'DEPOSIT_APPROVED', payload: { ...deposit, id: 'a b' } }],
    ['a numeric payload id', { event: 'DEPOSIT_APPROVED', payload: { ...deposit, id: 7 } }],
    ['an event name with a slash', { event: 'A/B', payload: { id: 'x' } }],
    ['an array', [{ event: 'DEPOSIT_APPROVED', payload: deposit }]],
    ['null', null],
  ])('refuses %s', (_label, body) => {
    const parsed = parseDelivery(body);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.fields.length).toBeGreaterThan(0);
  });

  it('hands over a known event whose payload is not its resource, as a hint, naming the fields that do not match', () => {
    const parsed = parseDelivery({
      event: 'DEPOSIT_RECEIVED',
      payload: { id: 'd-1', customerId: 'c-1', status: 'RECEIVED' },
    });
    expect(parsed).toMatchObject({
      ok: true,
      workflowId: 'event/DEPOSIT_RECEIVED/d-1',
      input: { resource: 'deposit', hint: { status: 'RECEIVED', customerId: 'c-1' } },
    });
    if (parsed.ok)
      expect(parsed.mismatchedFields).toEqual(expect.arrayContaining(['type', 'currency', 'amount', 'timestamp']));
  });

  it('names the mismatched fields, never their values, and takes no hint from a mistyped one', () => {
    const parsed = parseDelivery({
      event: 'TRADE_SETTLED',
      payload: { ...deposit, deposit: 'SECRET-VALUE', status: 7, amount: 'SECRET-VALUE' },
    });
    expect(parsed).toMatchObject({ ok: true, input: { hint: {} } });
    if (parsed.ok) expect(parsed.mismatchedFields.length).toBeGreaterThan(0);
    if (parsed.ok) expect(JSON.stringify({ ...parsed, payload: undefined })).not.toContain('SECRET-VALUE');
  });

  it('reports no mismatch for a payload of the right shape', () => {
    const parsed = parseDelivery({ event: 'DEPOSIT_APPROVED', payload: deposit });
    expect(parsed).toMatchObject({ ok: true, mismatchedFields: [] });
  });
});

describe('tokenMatches', () => {
  const token = 'correct-horse-battery-staple';
  it('accepts only the exact token', () => {
    expect(tokenMatches(token, token)).toBe(true);
    for (const wrong of [undefined, '', token.slice(0, -1), `${token}x`, token.toUpperCase()])
      expect(tokenMatches(wrong, token)).toBe(false);
  });
});

describe('sourceIpPolicy', () => {
  it('allows any source when the list is empty', () => {
    expect(sourceIpPolicy([]).allows('203.0.113.9')).toBe(true);
  });
  it('allows listed addresses and ranges, including IPv4 peers of a dual-stack socket', () => {
    const policy = sourceIpPolicy(['203.0.113.9', '198.51.100.0/24', '2001:db8::/32']);
    expect(policy.allows('203.0.113.9')).toBe(true);
    expect(policy.allows('::ffff:203.0.113.9')).toBe(true);
    expect(policy.allows('198.51.100.77')).toBe(true);
    expect(policy.allows('2001:db8::1')).toBe(true);
    expect(policy.allows('203.0.113.10')).toBe(false);
    expect(policy.allows('127.0.0.1')).toBe(false);
    expect(policy.allows(undefined)).toBe(false);
  });
  it('fails start-up on a malformed entry, naming the variable', () => {
    expect(() => sourceIpPolicy(['10.0.0.300'])).toThrow(ConfigError);
    expect(() => sourceIpPolicy(['10.0.0.0/33'])).toThrow(/WEBHOOK_ALLOWED_IPS: "10.0.0.0\/33"/);
  });
});

describe('checkCallbackUrl', () => {
  const token = 'a-long-secret-token-123';
  it('requires https for a real service', () => {
    expect(() =>
      checkCallbackUrl(`http://hooks.example.com/webhooks/ramp/${token}`, 'https://api.ramp.example', token),
    ).toThrow(RegistrationRefused);
    expect(
      checkCallbackUrl(`https://hooks.example.com/webhooks/ramp/${token}`, 'https://api.ramp.example', token).host,
    ).toBe('hooks.example.com');
  });
  it('allows http when the base URL is the local sandbox', () => {
    expect(() =>
      checkCallbackUrl(`http://127.0.0.1:8788/webhooks/ramp/${token}`, 'http://127.0.0.1:8787', token),
    ).not.toThrow();
  });
  it('allows http to a sandbox on a private network only when asked to (--allow-http)', () => {
    const url = `http://webhooks:8788/webhooks/ramp/${token}`;
    expect(() => checkCallbackUrl(url, 'http://sandbox:8787', token)).toThrow(/--allow-http/);
    expect(checkCallbackUrl(url, 'http://sandbox:8787', token, true).host).toBe('webhooks:8788');
  });
  it('refuses a path that does not carry WEBHOOK_TOKEN, without echoing the token', () => {
    const refusal = (() => {
      try {
        checkCallbackUrl('https://hooks.example.com/webhooks/ramp/other', 'https://api.ramp.example', token);
      } catch (error) {
        return error as Error;
      }
      return undefined;
    })();
    expect(refusal).toBeInstanceOf(RegistrationRefused);
    expect(refusal!.message).not.toContain(token);
  });
  it('redacts the token for output', () => {
    expect(redactCallbackUrl(`https://hooks.example.com/webhooks/ramp/${token}`)).toBe(
      'https://hooks.example.com/webhooks/ramp/***',
    );
  });
});
