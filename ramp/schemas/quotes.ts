/**
 * Indicative prices, shapes assumed (the interface shows neither): GET /autoramp-flow/trade-preview
 * for a currency pair and amount, and GET /payment/estimate (the interface's POST, as a GET with the
 * same fields in the query).
 */
import { z } from 'zod';
import { DecimalString } from './common';

export const TradePreviewRequestSchema = z.object({
  fromCurrency: z.string().min(1),
  toCurrency: z.string().min(1),
  amount: DecimalString,
});
export type TradePreviewRequest = z.infer<typeof TradePreviewRequestSchema>;

export const TradePreviewSchema = z.looseObject({
  fromCurrency: z.string(),
  toCurrency: z.string(),
  fromAmount: DecimalString,
  toAmount: DecimalString,
  rate: DecimalString,
});
export type TradePreview = z.infer<typeof TradePreviewSchema>;

export const PaymentQuoteRequestSchema = z.object({
  deductCurrency: z.string().min(1),
  deductAmount: DecimalString,
  receivedCurrency: z.string().min(1),
});
export type PaymentQuoteRequest = z.infer<typeof PaymentQuoteRequestSchema>;

export const PaymentQuoteSchema = z.looseObject({
  rate: DecimalString,
  deductAmount: DecimalString,
  deductCurrency: z.string(),
  receivedAmount: DecimalString,
  receivedCurrency: z.string(),
});
export type PaymentQuote = z.infer<typeof PaymentQuoteSchema>;
