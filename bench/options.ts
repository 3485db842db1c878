/** How a bench run was asked for: full (the table) or quick (`--quick` or BENCH_QUICK=1, for development). */
export interface BenchOptions {
  /** Small sizes and short windows: minutes become seconds, figures become rough. */
  quick: boolean;
  /** `--cluster`: on the cluster profile's Temporal server on PostgreSQL instead of the dev server (journeys and burst only). */
  cluster: boolean;
  /** Progress lines, so a long run shows where it is. */
  progress: (line: string) => void;
}
