/**
 * RAMP_ASSUMPTIONS_FILE: a JSON file of overrides of ramp/assumptions.ts, for a deployment whose
 * service answers differently from what rampflow assumes (`rampflow probe` prints the keys to put
 * there). The worker, the webhook receiver, the CLI and the probe all read it through
 * loadAssumptionsFile, so they agree. A bad file stops the process at start with one line naming the
 * key; values are not quoted back (they are not secret, but a line is easier to read without them).
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { DEFAULT_ASSUMPTIONS, type QueryParameterNames, type RampAssumptionOverrides } from './assumptions';

const parameterName = z
  .string()
  .regex(/^[A-Za-z0-9_.-]{1,64}$/, 'expected a parameter name: letters, digits, _ . - (1 to 64)');
const fieldName = z
  .string()
  .regex(/^[A-Za-z0-9_.-]{1,64}$/, 'expected a form field name: letters, digits, _ . - (1 to 64)');

/** One optional entry per query parameter name rampflow sends, generated from the defaults. */
const queryParameterNamesSchema = z.strictObject(
  Object.fromEntries(
    Object.keys(DEFAULT_ASSUMPTIONS.queryParameterNames).map((name) => [name, parameterName.optional()]),
  ) as Record<keyof QueryParameterNames, z.ZodOptional<typeof parameterName>>,
);

export const RampAssumptionsFileSchema = z.strictObject({
  queryParameterNames: queryParameterNamesSchema.optional(),
  legacyCreateVaPath: z
    .string()
    .regex(/^\/[A-Za-z0-9\-._~/]{1,200}$/, 'expected a path starting with /')
    .optional(),
  legacySuccessStatuses: z
    .array(z.union([z.string().min(1).max(64), z.number().int()]))
    .min(1, 'expected at least one status')
    .max(20)
    .optional(),
  attachmentFields: z.strictObject({ depositId: fieldName.optional(), file: fieldName.optional() }).optional(),
  customerDocumentField: fieldName.optional(),
  clockSkewToleranceMs: z
    .number()
    .int()
    .min(1_000, 'at least 1000 (the resolution of the Date header)')
    .max(300_000)
    .optional(),
  maxPageSize: z.number().int().min(1).max(100, 'the interface allows at most 100').optional(),
  listOrder: z.enum(['newest-first', 'unknown']).optional(),
});
export type RampAssumptionsFile = z.infer<typeof RampAssumptionsFileSchema>;

/** What each key of the file means and its default, for docs/reference/environment.md. */
export const ASSUMPTION_FILE_KEYS: Record<keyof RampAssumptionsFile, { description: string; defaultValue: string }> = {
  queryParameterNames: {
    description: `the names of query parameters the interface gives only by label, one key per name to change: ${Object.keys(
      DEFAULT_ASSUMPTIONS.queryParameterNames,
    )
      .map((name) => `\`${name}\``)
      .join(', ')}`,
    defaultValue: 'camelCase as listed (`userId` is `user_id`)',
  },
  legacyCreateVaPath: {
    description: "the path of the older generation's create-va",
    defaultValue: `\`${DEFAULT_ASSUMPTIONS.legacyCreateVaPath}\``,
  },
  legacySuccessStatuses: {
    description: 'the `status` values (strings, any case, or numbers) the older generation answers success with',
    defaultValue: '`["SUCCESS", "OK", 200]`',
  },
  attachmentFields: {
    description: "form field names of `POST /deposit/submitAttachmentFile`: `depositId` (the deposit's id) and `file`",
    defaultValue: `\`${JSON.stringify(DEFAULT_ASSUMPTIONS.attachmentFields)}\``,
  },
  customerDocumentField: {
    description: 'form field name of each document in `POST /customer/createWithFiles`',
    defaultValue: `\`${DEFAULT_ASSUMPTIONS.customerDocumentField}\``,
  },
  clockSkewToleranceMs: {
    description:
      "how far the local clock may be from the service's `Date` before the client corrects its timestamps; keep it well inside the skew the service accepts",
    defaultValue: `\`${DEFAULT_ASSUMPTIONS.clockSkewToleranceMs}\``,
  },
  maxPageSize: {
    description: 'the largest `pageSize` the service accepts; larger requests are cut down to it',
    defaultValue: `\`${DEFAULT_ASSUMPTIONS.maxPageSize}\``,
  },
  listOrder: {
    description:
      'how the service orders its customer, deposit and trade lists: `newest-first` or `unknown`; overrides `RECONCILE_LIST_ORDER`',
    defaultValue: '`RECONCILE_LIST_ORDER`',
  },
};

/** The overrides a checked file stands for. */
export function overridesFromFile(file: RampAssumptionsFile): RampAssumptionOverrides {
  const { legacySuccessStatuses, attachmentFields, ...rest } = file;
  const overrides: RampAssumptionOverrides = { ...rest };
  if (attachmentFields !== undefined)
    overrides.attachmentFields = { ...DEFAULT_ASSUMPTIONS.attachmentFields, ...attachmentFields };
  if (legacySuccessStatuses !== undefined) {
    const accepted = new Set(
      legacySuccessStatuses.map((status) => (typeof status === 'number' ? status : status.toUpperCase())),
    );
    overrides.isLegacySuccessStatus = (status) =>
      accepted.has(typeof status === 'number' ? status : status.toUpperCase());
  }
  return overrides;
}

/** A file that cannot be used: `message` is one line naming the variable and the key. */
export class AssumptionsFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AssumptionsFileError';
  }
}

/** Parses the file's text; throws an AssumptionsFileError naming the first bad key. */
export function parseAssumptionsFile(text: string): RampAssumptionOverrides {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new AssumptionsFileError('RAMP_ASSUMPTIONS_FILE: not valid JSON');
  }
  const result = RampAssumptionsFileSchema.safeParse(json);
  if (result.success) return overridesFromFile(result.data);
  const issue = result.error.issues[0];
  const keys = issue?.code === 'unrecognized_keys' ? issue.keys.map((key) => [...issue.path, key].join('.')) : [];
  if (keys.length > 0) throw new AssumptionsFileError(`RAMP_ASSUMPTIONS_FILE: unknown key ${keys.join(', ')}`);
  const where = issue === undefined || issue.path.length === 0 ? '(the file)' : issue.path.join('.');
  throw new AssumptionsFileError(`RAMP_ASSUMPTIONS_FILE: ${where}: ${issue?.message ?? 'invalid'}`);
}

/** The overrides in the file a process was given, or none when RAMP_ASSUMPTIONS_FILE is unset. */
export function loadAssumptionsFile(path: string | undefined): RampAssumptionOverrides {
  if (path === undefined || path === '') return {};
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new AssumptionsFileError(`RAMP_ASSUMPTIONS_FILE: cannot read ${path} (${code})`);
  }
  return parseAssumptionsFile(text);
}
