/**
 * The zod schema of what a journey's `depositReports` update takes (workflows/common/deposit-reports.ts): its
 * deposits' reports, batched. The journey checks offers with the check generated from it
 * (workflows/common/contract-checks.ts); no workflow imports it.
 */
import { z } from 'zod';
import { MAX_REPORTS_PER_OFFER } from './deposit-reports';
import { DepositProgressSchema } from './message-schemas';

export const DepositReportsSchema = z
  .array(z.object({ key: z.string().min(1).max(200), progress: DepositProgressSchema }))
  .min(1)
  .max(MAX_REPORTS_PER_OFFER);
