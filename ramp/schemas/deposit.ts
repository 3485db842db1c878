/** Deposit record and list item (interface: "Deposit record (detail)", "Deposit list item"). */
import { z } from 'zod';
import { BankAccountSchema } from './bank-account';
import { DecimalString, Identifier, TimestampString, optionalNullable } from './common';
import { CryptoAddressSchema } from './crypto-address';
import { DepositAddressSchema } from './deposit-address';
import { VirtualAccountSchema } from './virtual-account';

export const DEPOSIT_STATUSES = ['RECEIVED', 'CONFIRMED', 'ACTION_REQUIRED', 'REJECTED'] as const;
export const DepositStatusSchema = z.enum(DEPOSIT_STATUSES);
export type DepositStatus = z.infer<typeof DepositStatusSchema>;

export const DEPOSIT_TYPES = ['CRYPTO', 'FIAT'] as const;
export const DepositTypeSchema = z.enum(DEPOSIT_TYPES);

/**
 * The contract declares `customerId` a generic object; samples carry a string identifier, and our
 * routing needs a string, so a string is what we accept.
 */
const DepositCustomerId = Identifier;

/**
 * The interface does not say how complete the embedded records are, so each is the resource's
 * schema with every field optional (anything present is still type-checked).
 */
const EmbeddedBankAccount = BankAccountSchema.partial();
const EmbeddedCryptoAddress = CryptoAddressSchema.partial();
const EmbeddedDepositAddress = DepositAddressSchema.partial();
const EmbeddedVirtualAccount = VirtualAccountSchema.partial();

/**
 * Required: what identifies the deposit and its state. Rail-specific fields (`txid`, the sender and
 * receiver records, references) are present "when applicable", so they are optional and nullable.
 */
export const DepositSchema = z.looseObject({
  id: Identifier,
  customerId: DepositCustomerId,
  type: DepositTypeSchema,
  currency: z.string(),
  amount: DecimalString,
  status: DepositStatusSchema,
  timestamp: TimestampString,
  senderBankAccount: optionalNullable(EmbeddedBankAccount),
  senderCryptoAddress: optionalNullable(EmbeddedCryptoAddress),
  receiverDepositAddress: optionalNullable(EmbeddedDepositAddress),
  receiverVirtualAccount: optionalNullable(EmbeddedVirtualAccount),
  txid: optionalNullable(z.string()),
  voutIndexTxKey: optionalNullable(z.string()),
  txFrom: optionalNullable(z.string()),
  txReference: optionalNullable(z.string()),
});
export type Deposit = z.infer<typeof DepositSchema>;

export const DepositListItemSchema = z.looseObject({
  id: Identifier,
  customerId: DepositCustomerId,
  currency: z.string(),
  amount: DecimalString,
  status: DepositStatusSchema,
  timestamp: TimestampString,
  customerName: optionalNullable(z.string()),
  txid: optionalNullable(z.string()),
  voutIndexTxKey: optionalNullable(z.string()),
  txFrom: optionalNullable(z.string()),
  txReference: optionalNullable(z.string()),
});
export type DepositListItem = z.infer<typeof DepositListItemSchema>;

/** The currencies the real sandbox's POST /deposit/mock accepts. */
export const MOCK_DEPOSIT_CURRENCIES = ['EUR', 'GBP', 'SGD', 'USD', 'AUD', 'USDT', 'USDC'] as const;

/**
 * POST /deposit/mock, the real sandbox's simulated deposit, into a virtual account (fiat, with the
 * sending bank account; an AUD sender needs its BSB and must be whitelisted) or a deposit address
 * (crypto, with the sending wallet). The field names are our assumption, the same as the local
 * sandbox's /sandbox/deposit/simulate; the answer is assumed to be the new deposit's record.
 */
export const MockDepositRequestSchema = z.union([
  z.object({
    virtualAccountId: Identifier,
    currency: z.enum(MOCK_DEPOSIT_CURRENCIES),
    amount: DecimalString,
    sender: z.object({
      bsbNumber: z.string().min(1).optional(),
      accountNumber: z.string().min(1),
      accountName: z.string().optional(),
    }),
  }),
  z.object({
    depositAddressId: Identifier,
    currency: z.enum(MOCK_DEPOSIT_CURRENCIES),
    amount: DecimalString,
    sender: z.object({ address: z.string().min(1), network: z.string().min(1) }),
  }),
]);
export type MockDepositRequest = z.infer<typeof MockDepositRequestSchema>;
