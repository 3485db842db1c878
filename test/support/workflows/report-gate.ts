/**
 * A stand-in journey that holds a deposit's COMPLETED report at its door: its `depositReports` validator
 * refuses any offer carrying one until `openGate` is signalled, with the refusal a real journey gives
 * while it hands over to its next run (so the deposit offers it again). Everything else it takes and keeps, in order, for the test to read.
 */
import { condition, defineQuery, defineSignal, setHandler } from '@temporalio/workflow';
import { depositReportsUpdate, HANDING_OVER, type DepositReport } from '../../../workflows/common/messages';

export const openGateSignal = defineSignal('openGate');
export const finishGateSignal = defineSignal('finishGate');
export const takenReportsQuery = defineQuery<DepositReport[]>('takenReports');

export async function reportGate(): Promise<void> {
  let open = false;
  let finished = false;
  const taken: DepositReport[] = [];
  setHandler(openGateSignal, () => void (open = true));
  setHandler(finishGateSignal, () => void (finished = true));
  setHandler(takenReportsQuery, () => taken);
  setHandler(
    depositReportsUpdate,
    (reports) => {
      taken.push(...reports);
      return { taken: reports.length };
    },
    {
      validator: (reports: DepositReport[]) => {
        if (!open && reports.some((report) => report.progress.summary.stage === 'COMPLETED'))
          throw new Error(HANDING_OVER);
      },
    },
  );
  await condition(() => finished);
}
