import { Context } from '@temporalio/activity';
import { fullFloorReportUpdate } from './messages';

/** The floor's activities: they do nothing of their own, so what they cost is Temporal's scheduling of them. */
export const floorActivities = {
  async step(): Promise<void> {
    // Intentionally empty.
  },
  /** The full floor's report: offered to the journey by update, as rampflow's deposits offer theirs. */
  async report({
    journeyId,
    depositId,
    stage,
  }: {
    journeyId: string;
    depositId: string;
    stage: string;
  }): Promise<void> {
    await Context.current()
      .client.workflow.getHandle(journeyId)
      .executeUpdate(fullFloorReportUpdate, { args: [{ depositId, stage }] });
  },
};

export type FloorActivities = typeof floorActivities;
