/**
 * The worker's check of its namespace at start. A workflow that upserts a search attribute the
 * namespace lacks (or holds with another type) fails its workflow task with `BadSearchAttributes`,
 * again on every retry: no journey gets past its first task, while the worker looks healthy and only
 * logs a WARN per attempt. So the worker refuses to start on such a namespace, with the command that
 * repairs it, rather than run and do nothing.
 */
import type { NativeConnection } from '@temporalio/worker';
import { temporal } from '@temporalio/proto';
import { RAMP_SEARCH_ATTRIBUTES, type SearchAttributeTypeName } from '../observability/search-attributes';

const IndexedValueType = temporal.api.enums.v1.IndexedValueType;

/** Each type the Temporal CLI names (`--type`, as `temporal operator search-attribute list` shows them) as the API's indexed value type. */
export const INDEXED_VALUE_TYPES: Record<SearchAttributeTypeName, number> = {
  Text: IndexedValueType.INDEXED_VALUE_TYPE_TEXT,
  Keyword: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
  Int: IndexedValueType.INDEXED_VALUE_TYPE_INT,
  Double: IndexedValueType.INDEXED_VALUE_TYPE_DOUBLE,
  Bool: IndexedValueType.INDEXED_VALUE_TYPE_BOOL,
  Datetime: IndexedValueType.INDEXED_VALUE_TYPE_DATETIME,
  KeywordList: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD_LIST,
};
const TYPE_NAMES = new Map(Object.entries(INDEXED_VALUE_TYPES).map(([name, value]) => [value, name]));

export interface SearchAttributeSpec {
  name: string;
  type: SearchAttributeTypeName;
}

/** Where the commands are run against: omitted parts are left to the CLI's environment (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE). */
export interface CommandTarget {
  address?: string;
  namespace?: string;
}

function targetFlags(target: CommandTarget): string {
  return [
    target.address ? ` --address ${target.address}` : '',
    target.namespace ? ` --namespace ${target.namespace}` : '',
  ].join('');
}

/**
 * The one command that registers `attributes`: each `--name` with its own `--type` (the CLI pairs them
 * by position; one `--type` after several names registers only the first).
 */
export function searchAttributeCreateCommand(
  attributes: readonly SearchAttributeSpec[],
  target: CommandTarget = {},
): string {
  return `temporal operator search-attribute create${targetFlags(target)}${attributes.map(({ name, type }) => ` --name ${name} --type ${type}`).join('')}`;
}

function searchAttributeRemoveCommand(names: readonly string[], target: CommandTarget): string {
  return `temporal operator search-attribute remove${targetFlags(target)}${names.map((name) => ` --name ${name}`).join('')}`;
}

export interface SearchAttributeProblems {
  missing: SearchAttributeSpec[];
  wrongType: (SearchAttributeSpec & { registeredAs: string })[];
}

/** What `registered` (name to indexed value type, as ListSearchAttributes answers) lacks of `expected`. */
export function searchAttributeProblems(
  registered: Record<string, number>,
  expected: readonly SearchAttributeSpec[] = RAMP_SEARCH_ATTRIBUTES,
): SearchAttributeProblems {
  const problems: SearchAttributeProblems = { missing: [], wrongType: [] };
  for (const attribute of expected) {
    const registeredType = registered[attribute.name];
    if (registeredType === undefined) problems.missing.push(attribute);
    else if (TYPE_NAMES.get(registeredType) !== attribute.type)
      problems.wrongType.push({
        ...attribute,
        registeredAs: TYPE_NAMES.get(registeredType) ?? `type ${registeredType}`,
      });
  }
  return problems;
}

/** One line: each attribute that is wrong, and the commands that make it right. */
export function searchAttributeProblemsMessage(
  problems: SearchAttributeProblems,
  target: Required<CommandTarget>,
): string {
  const named = [
    ...problems.missing.map(({ name, type }) => `${name} (${type}) is not registered`),
    ...problems.wrongType.map(
      ({ name, type, registeredAs }) => `${name} is registered as ${registeredAs}, not ${type}`,
    ),
  ];
  const steps: string[] = [];
  if (problems.wrongType.length > 0)
    steps.push(
      `\`${searchAttributeRemoveCommand(
        problems.wrongType.map(({ name }) => name),
        target,
      )}\` (no workflow of rampflow can have stored a value under the wrong type)`,
    );
  steps.push(`\`${searchAttributeCreateCommand([...problems.wrongType, ...problems.missing], target)}\``);
  return (
    `namespace ${target.namespace} lacks search attributes rampflow's workflows set, and every workflow task that sets one would fail: ` +
    `${named.join('; ')}. Register them with ${steps.join(', then ')}, and start the worker again ` +
    '(the list: docs/reference/search-attributes.md)'
  );
}

/** gRPC codes for which the check cannot be made (an API key without the operator permission, a server without the API). */
const GRPC_PERMISSION_DENIED = 7;
const GRPC_UNIMPLEMENTED = 12;

export type NamespaceCheck = { ok: true } | { ok: false; problem: string } | { ok: 'unchecked'; reason: string };

/** Asks the server for the namespace's search attributes and compares them with RAMP_SEARCH_ATTRIBUTES. */
export async function checkNamespaceSearchAttributes(
  connection: NativeConnection,
  target: Required<CommandTarget>,
): Promise<NamespaceCheck> {
  let registered: Record<string, number>;
  try {
    const response = await connection.operatorService.listSearchAttributes({ namespace: target.namespace });
    registered = { ...(response.customAttributes ?? {}) };
  } catch (error) {
    const code = (error as { code?: number }).code;
    if (code === GRPC_PERMISSION_DENIED || code === GRPC_UNIMPLEMENTED)
      return { ok: 'unchecked', reason: error instanceof Error ? error.message : String(error) };
    throw error;
  }
  const problems = searchAttributeProblems(registered);
  if (problems.missing.length === 0 && problems.wrongType.length === 0) return { ok: true };
  return { ok: false, problem: searchAttributeProblemsMessage(problems, target) };
}
