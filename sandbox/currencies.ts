/**
 * Currencies, networks and the conversion rates the sandbox uses. Pricing, fees and settlement rules
 * are not shown by the interface, so the sandbox uses a fixed, plausible table; clients must not
 * depend on these figures.
 */
import { divide, formatDecimal, multiply, parseDecimal, type Scaled } from './decimal';

/** The bank-account currency filter values of the interface. */
export const FIAT_CURRENCIES = ['AUD', 'EUR', 'GBP', 'SGD', 'USD'] as const;
/** The crypto-address currency filter values of the interface. */
export const CRYPTO_CURRENCIES = ['USDC', 'USDT'] as const;
/** The network codes the interface shows. */
export const NETWORKS = ['ETH', 'TRX'] as const;

export type FiatCurrency = (typeof FIAT_CURRENCIES)[number];
export type CryptoCurrency = (typeof CRYPTO_CURRENCIES)[number];
export type Currency = FiatCurrency | CryptoCurrency;
export type Network = (typeof NETWORKS)[number];

export const ALL_CURRENCIES: readonly Currency[] = [...FIAT_CURRENCIES, ...CRYPTO_CURRENCIES];

export function isCrypto(currency: string): currency is CryptoCurrency {
  return (CRYPTO_CURRENCIES as readonly string[]).includes(currency);
}

/** Fraction digits shown for amounts: cents for fiat, 6 for the stablecoins (their on-chain precision). */
export function placesOf(currency: string): number {
  return isCrypto(currency) ? 6 : 2;
}

export function formatAmount(value: Scaled, currency: string): string {
  return formatDecimal(value, placesOf(currency));
}

/** Value of one unit in US dollars. */
const USD_VALUE: Record<Currency, string> = {
  AUD: '0.65',
  EUR: '1.08',
  GBP: '1.27',
  SGD: '0.74',
  USD: '1',
  USDC: '1',
  USDT: '1',
};

/** Units of `to` per unit of `from`. */
export function rateOf(from: Currency, to: Currency): Scaled {
  return divide(parseDecimal(USD_VALUE[from]), parseDecimal(USD_VALUE[to]));
}

/** Multiplies before dividing, so 127 USDT at 1.27 USD per GBP is exactly 100 GBP, not 99.99. */
export function convert(amount: Scaled, from: Currency, to: Currency): Scaled {
  return divide(multiply(amount, parseDecimal(USD_VALUE[from])), parseDecimal(USD_VALUE[to]));
}

export function formatRate(rate: Scaled): string {
  return formatDecimal(rate, 8);
}
