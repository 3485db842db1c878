/** The floor's activity: does nothing, so what it costs is Temporal's scheduling of it. */
export const floorActivities = {
  async step(): Promise<void> {
    // Intentionally empty.
  },
};

export type FloorActivities = typeof floorActivities;
