/**
 * Query parameters, read from the raw request target so the sandbox sees exactly what was signed.
 * Names the interface gives only by label are camelCase (DESIGN: "What the interface leaves open"):
 * `id`, `externalId`, `customerId`, `currency`, `status`, `type`.
 */
import { invalidParameters } from './errors';

export class Query {
  private readonly params: URLSearchParams;

  constructor(rawQuery: string) {
    this.params = new URLSearchParams(rawQuery);
  }

  /** The first value of a parameter; an empty value counts as absent. */
  optional(name: string): string | undefined {
    const value = this.params.get(name);
    return value === null || value === '' ? undefined : value;
  }

  required(name: string): string {
    const value = this.optional(name);
    if (value === undefined) throw invalidParameters(`query parameter ${name} is required`);
    return value;
  }

  /** An optional value that must be one of `allowed`. */
  oneOf<T extends string>(name: string, allowed: readonly T[]): T | undefined {
    const value = this.optional(name);
    if (value === undefined) return undefined;
    if (!(allowed as readonly string[]).includes(value)) {
      throw invalidParameters(`${name} must be one of ${allowed.join(', ')}`);
    }
    return value as T;
  }
}

export interface Page<T> {
  list: T[];
  total: number;
  pageNum: number;
  pageSize: number;
}

/** Defaults are not shown by the interface; these are the sandbox's. */
const DEFAULT_PAGE_NUM = 1;
const DEFAULT_PAGE_SIZE = 10;
const MAX_PAGE_SIZE = 100;

function pageParameter(query: Query, name: string, fallback: number, max: number): number {
  const text = query.optional(name);
  if (text === undefined) return fallback;
  const value = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < 1 || value > max) {
    throw invalidParameters(max === Number.MAX_SAFE_INTEGER ? `${name} must be an integer >= 1` : `${name} must be an integer from 1 to ${max}`);
  }
  return value;
}

/** Validates pageNum (>= 1) and pageSize (1..100) and cuts the page (interface: "Limits"). */
export function paginate<T, V>(query: Query, rows: T[], view: (row: T) => V): Page<V> {
  const pageNum = pageParameter(query, 'pageNum', DEFAULT_PAGE_NUM, Number.MAX_SAFE_INTEGER);
  const pageSize = pageParameter(query, 'pageSize', DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);
  const start = (pageNum - 1) * pageSize;
  return { list: rows.slice(start, start + pageSize).map(view), total: rows.length, pageNum, pageSize };
}
