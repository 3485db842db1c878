/**
 * `rampflow probe`: runs every check against one service and gathers the lines and the overrides
 * they name into one report. Read-only unless `create` (two test customers, for the list order).
 */
import { resolveAssumptions, type RampAssumptionOverrides } from '../assumptions';
import type { RampAssumptionsFile } from '../assumptions-file';
import { callbackUrl } from './callback-url';
import {
  acceptedClockSkew,
  badSignature,
  clockAndLatency,
  legacyCreateVaPath,
  listOrder,
  maxPageSize,
  queryParameterNames,
  replayedNonce,
  type ProbeContext,
  type ProbeLine,
} from './checks';
import { UNCHECKED } from './unchecked';
import { ProbeWire } from './wire';

export { ProbeCannotRun, type ProbeLine } from './checks';

export interface ProbeOptions {
  baseUrl: string;
  apiKey: string;
  apiSecret: string;
  /** What RAMP_ASSUMPTIONS_FILE overrides: the probe checks what rampflow would actually do. */
  assumptions?: RampAssumptionOverrides;
  /** The list order rampflow reconciles with when the file does not say (RECONCILE_LIST_ORDER). */
  reconcileListOrder?: 'newest-first' | 'unknown';
  create?: boolean;
  webhookUrl?: string;
}

export interface ProbeReport {
  lines: ProbeLine[];
  /** Every override the lines name, merged: the RAMP_ASSUMPTIONS_FILE that matches this service. */
  overrides: RampAssumptionsFile;
  /** No line differs. */
  held: boolean;
}

export async function runProbe(options: ProbeOptions): Promise<ProbeReport> {
  const assumptions = resolveAssumptions(options.assumptions);
  const wire = new ProbeWire(options.baseUrl, options.apiKey, options.apiSecret);
  const context: ProbeContext = {
    wire,
    assumptions,
    listOrder: assumptions.listOrder ?? options.reconcileListOrder ?? 'newest-first',
    create: options.create === true,
  };
  try {
    const lines: ProbeLine[] = [await clockAndLatency(context)];
    const names = await queryParameterNames(context);
    lines.push(names.line);
    lines.push(await maxPageSize(context, names.working));
    lines.push(await acceptedClockSkew(context, names.working));
    lines.push(await badSignature(context, names.working));
    lines.push(await replayedNonce(context, names.working));
    lines.push(await listOrder(context, names.working));
    lines.push(await legacyCreateVaPath(context));
    lines.push(await callbackUrl(options.webhookUrl));
    lines.push(...UNCHECKED);
    return { lines, overrides: mergeOverrides(lines), held: lines.every((line) => line.status !== 'differs') };
  } finally {
    await wire.close();
  }
}

function mergeOverrides(lines: ProbeLine[]): RampAssumptionsFile {
  let merged: RampAssumptionsFile = {};
  for (const { override } of lines) {
    if (override === undefined) continue;
    merged = {
      ...merged,
      ...override,
      ...(override.queryParameterNames
        ? { queryParameterNames: { ...merged.queryParameterNames, ...override.queryParameterNames } }
        : {}),
    };
  }
  return merged;
}

/** The report as text: one line per check, then the file that matches the service when anything differs. */
export function formatProbeReport(report: ProbeReport, service: string): string {
  const width = Math.max(...report.lines.map((line) => line.check.length));
  const lines = [`rampflow probe of ${service}`];
  for (const line of report.lines) {
    const label = line.status === 'unchecked' ? 'could not be checked' : line.status;
    const override = line.override === undefined ? '' : ` -> RAMP_ASSUMPTIONS_FILE ${JSON.stringify(line.override)}`;
    lines.push(`${line.check.padEnd(width)}  ${label}: ${line.detail}${override}`);
  }
  if (report.held) lines.push('every assumption checked held');
  else if (Object.keys(report.overrides).length > 0)
    lines.push(
      `some assumptions differ; a RAMP_ASSUMPTIONS_FILE that matches this service:\n${JSON.stringify(report.overrides, null, 2)}`,
    );
  else lines.push('some assumptions differ, and no override matches them: see docs/deploying/going-live.md');
  return `${lines.join('\n')}\n`;
}
