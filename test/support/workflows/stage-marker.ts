/** A trivial workflow for the foundation test: it sets RampStage and the UI's current details, then ends. */
import { setCurrentDetails, upsertSearchAttributes } from '@temporalio/workflow';
import { RampStage } from '../../../observability/search-attributes';

export async function markStage(stage: string): Promise<string> {
  upsertSearchAttributes([{ key: RampStage, value: stage }]);
  setCurrentDetails(`stage ${stage}`);
  return stage;
}
