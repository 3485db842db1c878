/**
 * Request-body building blocks the sandbox validates against. They are the server's view (what it
 * accepts), deliberately separate from the client's schemas in ramp/schemas, so each can catch the
 * other's mistakes.
 */
import { z } from 'zod';
import { CRYPTO_CURRENCIES, FIAT_CURRENCIES, NETWORKS } from '../currencies';
import { DECIMAL_PATTERN } from '../decimal';

export const IdBody = z.object({ id: z.string().min(1) });

/** POST /sandbox/payment/fail: the payment and, optionally, the reason the service gives. */
export const FailPaymentBody = z.object({ id: z.string().min(1), reason: z.string().min(1).max(200).optional() });

export const FiatCurrencySchema = z.enum(FIAT_CURRENCIES);
export const CryptoCurrencySchema = z.enum(CRYPTO_CURRENCIES);
export const NetworkSchema = z.enum(NETWORKS);

export const AmountSchema = z.string().regex(DECIMAL_PATTERN, 'must be a positive decimal string such as "100.50"');

/** An AUD source account (interface: create-aud-whitelist `sourceAccount`, virtual-account `whitelist`). */
export const SourceAccountSchema = z.object({
  bsbNumber: z.string().min(1),
  accountNumber: z.string().min(1),
  accountName: z.string().optional(),
});

export function toSourceAccount(input: z.infer<typeof SourceAccountSchema>) {
  return { bsbNumber: input.bsbNumber, accountNumber: input.accountNumber, accountName: input.accountName ?? null };
}

/** POST /bank-account/add (and the older /sandbox/bank-account/create tool). */
export const NewBankAccountBody = z.object({
  customerId: z.string().min(1),
  currency: FiatCurrencySchema,
  bankName: z.string().min(1),
  accountNo: z.string().min(1),
  swift: z.string().min(1),
  beneficiaryName: z.string().min(1).optional(),
  beneficiaryAddress: z.string().optional(),
  bankCountry: z.string().optional(),
  bankAddress: z.string().optional(),
});

/** POST /bank-account/add: the real service requires the beneficiary's name. */
export const AddBankAccountBody = NewBankAccountBody.extend({ beneficiaryName: z.string().min(1) });

/** POST /crypto-address/add (and the older /sandbox/crypto-address/create tool). */
export const NewCryptoAddressBody = z.object({
  customerId: z.string().min(1),
  currency: CryptoCurrencySchema,
  network: NetworkSchema,
  address: z.string().min(1),
  label: z.string().optional(),
});

/** POST /deposit/mock and /sandbox/deposit/simulate: money into a virtual account or a deposit address. */
export const SimulatedDepositBody = z.union([
  z.strictObject({
    virtualAccountId: z.string().min(1),
    amount: AmountSchema,
    currency: z.string().min(1),
    sender: z.object({
      bsbNumber: z.string().min(1).optional(),
      accountNumber: z.string().min(1),
      accountName: z.string().optional(),
    }),
  }),
  z.strictObject({
    depositAddressId: z.string().min(1),
    amount: AmountSchema,
    currency: z.string().min(1),
    sender: z.object({ address: z.string().min(1), network: NetworkSchema }),
  }),
]);
