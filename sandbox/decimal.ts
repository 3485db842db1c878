/**
 * Exact arithmetic on the service's decimal strings. Amounts are held as bigints scaled by 10^18 so
 * balances and conversions never pick up binary floating-point error.
 */
const SCALE_DIGITS = 18;
const SCALE = 10n ** BigInt(SCALE_DIGITS);

/** A positive decimal amount as a client may send it: digits, optionally a fraction of up to 18 digits. */
export const DECIMAL_PATTERN = /^\d+(\.\d{1,18})?$/;

export type Scaled = bigint;

export function parseDecimal(text: string): Scaled {
  if (!DECIMAL_PATTERN.test(text)) throw new Error(`not a decimal string: ${text}`);
  const [whole = '0', fraction = ''] = text.split('.');
  return BigInt(whole) * SCALE + BigInt(fraction.padEnd(SCALE_DIGITS, '0'));
}

/** Formats with exactly `places` fraction digits, truncating toward zero (never rounding money up). */
export function formatDecimal(value: Scaled, places: number): string {
  const negative = value < 0n;
  const magnitude = negative ? -value : value;
  const whole = magnitude / SCALE;
  const fraction = (magnitude % SCALE).toString().padStart(SCALE_DIGITS, '0').slice(0, places);
  const text = places > 0 ? `${whole}.${fraction}` : whole.toString();
  return negative && /[1-9]/.test(text) ? `-${text}` : text;
}

export function multiply(a: Scaled, b: Scaled): Scaled {
  return (a * b) / SCALE;
}

export function divide(a: Scaled, b: Scaled): Scaled {
  return (a * SCALE) / b;
}
