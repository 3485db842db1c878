/**
 * Query parameters, read from the raw request target so the sandbox sees exactly what was signed.
 * Names the interface gives only by label are camelCase (DESIGN: "What the interface leaves open"):
 * `id`, `externalId`, `customerId`, `currency`, `status`, `type`.
 */
import type { QueryParameterStyle } from '../variant-types';
import { parameterNameIn } from '../variants';
import { invalidParameters } from './errors';

/** How the service reads its query (the `query-parameters` and `max-page-size` variants, sandbox/variants.ts). */
export interface QueryReading {
  style: QueryParameterStyle;
  maxPageSize: number;
}

export class Query {
  private readonly params: URLSearchParams;

  constructor(
    rawQuery: string,
    readonly reading: QueryReading = { style: 'camelCase', maxPageSize: MAX_PAGE_SIZE },
  ) {
    this.params = new URLSearchParams(rawQuery);
  }

  /** The first value of a parameter, by the interface's label; an empty value counts as absent. */
  optional(label: string): string | undefined {
    const value = this.params.get(parameterNameIn(this.reading.style, label));
    return value === null || value === '' ? undefined : value;
  }

  required(name: string): string {
    const value = this.optional(name);
    if (value === undefined)
      throw invalidParameters(`query parameter ${parameterNameIn(this.reading.style, name)} is required`);
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
    throw invalidParameters(
      max === Number.MAX_SAFE_INTEGER
        ? `${name} must be an integer >= 1`
        : `${name} must be an integer from 1 to ${max}`,
    );
  }
  return value;
}

/** Validates pageNum (>= 1) and pageSize (1..100, or the `max-page-size` variant's) and cuts the page (interface: "Limits"). */
export function paginate<T, V>(query: Query, rows: T[], view: (row: T) => V): Page<V> {
  const pageNum = pageParameter(query, 'pageNum', DEFAULT_PAGE_NUM, Number.MAX_SAFE_INTEGER);
  const pageSize = pageParameter(query, 'pageSize', DEFAULT_PAGE_SIZE, query.reading.maxPageSize);
  const start = (pageNum - 1) * pageSize;
  return { list: rows.slice(start, start + pageSize).map(view), total: rows.length, pageNum, pageSize };
}
