/**
 * The workflows' generated checks (workflows/common/checks.ts) against the zod schemas they are
 * generated from: the file is what the generator writes today, and on valid inputs and on every
 * single-point break of them (a field removed, of the wrong type, empty, too long, off its pattern,
 * an unknown key added), the check and zod agree on pass or fail, on the value kept (unknown keys
 * dropped where zod drops them) and, where zod finds one issue, on the field it names (and, for a
 * refused pattern, on its words).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  CHECKED_SCHEMAS,
  CONTRACT_CHECK_TYPES_PATH,
  CONTRACT_CHECKS_PATH,
  contractChecksSource,
  contractCheckTypesSource,
} from '../../dev/contract-checks';
import {
  checkAttachmentReference,
  checkDepositLifecycleInput,
  checkDepositReports,
  checkJourneyInput,
  checkRetryRequest,
  checkSignupRequest,
  type Checked,
} from '../../workflows/common/checks';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const customer = {
  externalId: 'user-42',
  realName: 'Ada Lovelace',
  email: 'ada@example.com',
  dateOfBirth: '1815-12-10',
};
const cryptoAddress = { address: '0xabc', network: 'ETH', registeredBy: 'journey', currency: 'USDT', label: 'main' };
const bankAccount = {
  accountNo: '12345678',
  registeredBy: 'journey',
  currency: 'GBP',
  bankName: 'Bank',
  swift: 'BANKGB2L',
  beneficiaryName: 'Ada',
  bankCountry: 'GB',
};
const summary = {
  depositId: 'dep-1',
  kind: 'ONRAMP',
  stage: 'TRADE_CREATED',
  amount: '100.00',
  currency: 'AUD',
  tradeId: 'trade-1',
  attention: { reason: 'late', stage: 'CONFIRMED', errorType: 'Timeout', since: '2026-11-24T00:00:00Z' },
};

/** Valid inputs of each check, each exercising as many fields as the schema has. */
const CASES: { name: keyof typeof CHECKED_SCHEMAS; check: (raw: unknown) => Checked<unknown>; valid: Json[] }[] = [
  {
    name: 'journeyInput',
    check: checkJourneyInput,
    valid: [
      {
        customer,
        onramp: {
          currency: 'AUD',
          cryptoAddress,
          audSourceAccount: { bsbNumber: '062000', accountNumber: '12345678', accountName: 'Ada' },
        },
        offramp: { currency: 'USDT', network: 'TRX', bankAccount },
        timings: {
          pollIntervalSeconds: 5,
          pollBackoffCapSeconds: 60,
          kycDeadlineSeconds: 600,
          accountsDeadlineSeconds: 600,
          maxHistoryEvents: 100,
        },
      },
      {
        customer: { externalId: 'a', realName: 'B', email: 'b@example.org' },
        onramp: { currency: 'EUR', cryptoAddress: { address: 'x' } },
      },
    ],
  },
  {
    name: 'depositLifecycleInput',
    check: checkDepositLifecycleInput,
    valid: [
      {
        depositId: 'dep-1',
        deposit: {
          id: 'dep-1',
          customerId: 'cus-1',
          status: 'RECEIVED',
          amount: '10',
          currency: 'AUD',
          virtualAccountId: 'va-1',
        },
        externalId: 'user-42',
        reversalOf: 'COMPLETED',
        timings: { pollIntervalSeconds: 1, pollBackoffCapSeconds: 2, stepDeadlineSeconds: 3, notFoundGraceSeconds: 4 },
      },
      { depositId: 'dep-2' },
    ],
  },
  { name: 'signupRequest', check: checkSignupRequest, valid: [{ waitSeconds: 5 }, {}] },
  {
    name: 'retryRequest',
    check: checkRetryRequest,
    valid: [
      {
        correctedInput: {
          customer,
          onramp: { currency: 'AUD', cryptoAddress },
          offramp: { currency: 'USDT', network: 'TRX', bankAccount },
        },
        bulk: true,
      },
      {},
    ],
  },
  {
    name: 'attachmentReference',
    check: checkAttachmentReference,
    valid: [
      { reference: 'att/1', sha256: 'a'.repeat(64), fileName: 'id.pdf', contentType: 'application/pdf', size: 1024 },
    ],
  },
  {
    name: 'depositReports',
    check: checkDepositReports,
    valid: [
      [
        { key: 'dep-1#r.1', progress: { summary, previousStage: 'CONFIRMED' } },
        {
          key: 'dep-2#r.1',
          progress: {
            summary: { depositId: 'dep-2', kind: 'OFFRAMP', stage: 'RECEIVED', amount: '5', currency: 'USDT' },
          },
        },
      ],
    ],
  },
];

const WRONG_VALUES: Json[] = [null, 0, -1, 1.5, '', 'x', 'x'.repeat(300), true, [], {}];

/** Every input one change away from `value`: each node replaced, removed, or given an unknown key. */
function breaks(
  value: Json,
  path: (string | number)[] = [],
): { path: (string | number)[]; input: (root: Json) => Json }[] {
  const found: { path: (string | number)[]; input: (root: Json) => Json }[] = [];
  for (const wrong of WRONG_VALUES) found.push({ path, input: (root) => replaceAt(root, path, () => wrong) });
  if (Array.isArray(value)) {
    value.forEach((item, index) => found.push(...breaks(item, [...path, index])));
  } else if (value !== null && typeof value === 'object') {
    found.push({ path, input: (root) => replaceAt(root, path, (node) => ({ ...(node as object), unknownKey: 'x' })) });
    for (const [key, item] of Object.entries(value)) {
      found.push({
        path: [...path, key],
        input: (root) => replaceAt(root, path, (node) => withoutKey(node as Record<string, Json>, key)),
      });
      found.push(...breaks(item, [...path, key]));
    }
  }
  return found;
}

function replaceAt(root: Json, path: (string | number)[], replace: (node: Json) => Json): Json {
  if (path.length === 0) return replace(root);
  const [head, ...rest] = path;
  if (Array.isArray(root)) return root.map((item, index) => (index === head ? replaceAt(item, rest, replace) : item));
  const object = root as Record<string, Json>;
  return { ...object, [head!]: replaceAt(object[head!]!, rest, replace) };
}

function withoutKey(node: Record<string, Json>, key: string): Json {
  const { [key]: _dropped, ...rest } = node;
  return rest;
}

const clone = (value: Json): Json => JSON.parse(JSON.stringify(value)) as Json;

describe("the workflows' generated contract checks", () => {
  it("are what the generator writes from today's schemas (npm run generate:contract-checks)", () => {
    expect(readFileSync(CONTRACT_CHECKS_PATH, 'utf8')).toBe(contractChecksSource());
    expect(readFileSync(CONTRACT_CHECK_TYPES_PATH, 'utf8')).toBe(contractCheckTypesSource());
  });

  it('cover every checked schema', () => {
    expect(CASES.map((entry) => entry.name).sort()).toEqual(Object.keys(CHECKED_SCHEMAS).sort());
  });

  for (const { name, check, valid } of CASES) {
    it(`${name}: agrees with zod on valid inputs and on every break of them`, () => {
      const schema: z.ZodType = CHECKED_SCHEMAS[name];
      let compared = 0;
      let refused = 0;
      let formatsCompared = 0;
      for (const base of valid) {
        const inputs = [
          { path: [] as (string | number)[], input: clone(base) },
          ...breaks(clone(base)).map((entry) => ({ path: entry.path, input: entry.input(clone(base)) })),
        ];
        for (const { path, input } of inputs) {
          const before = JSON.stringify(input);
          const zod = schema.safeParse(clone(input));
          const ours = check(input);
          const where = `${name} with ${JSON.stringify(path)} broken`;
          expect(ours.ok, where).toBe(zod.success);
          expect(JSON.stringify(input), `${where}: the check left its argument alone`).toBe(before);
          if (zod.success && ours.ok) expect(ours.value, where).toEqual(zod.data);
          if (!zod.success && !ours.ok) {
            refused++;
            // The same field, or (for a key a strict object refuses, which zod names by its object) one below it.
            const zodPath = zod.error.issues[0]!.path.join('.');
            const same = (path: string) =>
              path === (zodPath || '(input)') ||
              (zodPath === '' ? !path.includes('.') : path.startsWith(`${zodPath}.`));
            if (zod.error.issues.length === 1)
              expect(
                ours.issues.map((issue) => issue.path).some(same),
                `${where}: ${JSON.stringify(ours.issues)}`,
              ).toBe(true);
            // A refused pattern, in zod's words (the schema's own, or its format's).
            const [only] = zod.error.issues;
            if (zod.error.issues.length === 1 && only!.code === 'invalid_format') {
              expect(ours.issues, where).toContainEqual({ path: zodPath, message: only.message });
              formatsCompared++;
            }
          }
          compared++;
        }
      }
      // Enough breaks were refused for the comparison to mean something, patterns among them where the schema has any.
      expect(refused).toBeGreaterThan(compared / 3);
      if (JSON.stringify(z.toJSONSchema(schema, { io: 'input' })).includes('"pattern"'))
        expect(formatsCompared).toBeGreaterThan(0);
    });
  }

  it('name the field and the rule, never the value sent', () => {
    const result = checkJourneyInput({
      customer: { ...customer, email: 'secret-not-an-email' },
      offramp: { currency: 'USDT', network: 'TRX', bankAccount: { accountNo: '1', registeredBy: 'journey' } },
    });
    expect(result.ok).toBe(false);
    const text = JSON.stringify(result);
    expect(text).not.toContain('secret-not-an-email');
    expect(text).toContain('customer.email');
  });

  it("apply the rules that span fields, with zod's words", () => {
    const result = checkRetryRequest({
      correctedInput: {
        onramp: {
          currency: 'EUR',
          cryptoAddress: { address: 'x' },
          audSourceAccount: { bsbNumber: '062000', accountNumber: '1234' },
        },
      },
    });
    expect(result).toEqual({
      ok: false,
      issues: [
        { path: 'correctedInput.onramp.audSourceAccount', message: 'only an AUD onramp takes a source account' },
      ],
    });
  });
});
