/**
 * What each folder holds and which of the project's other folders it may import: the table of
 * docs/architecture.md is generated from this list (`npm run docs:generate`), and
 * test/docs/architecture.test.ts fails when a file imports a folder its own folder may not, or when
 * the page's table is stale. Change the rule here, in the same change as the import, and say why.
 * (`workflows/` has stricter rules still, enforced by ESLint: no Node built-ins, `ramp/` and
 * `activities/` as types only.) test/ and bench/ may import anything.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { markdownCell } from './markdown';

export interface FolderRule {
  folder: string;
  holds: string;
  /** Folders of ours it may import values from (and types). */
  imports: string[];
  /** Folders of ours it may import types only from. */
  typesFrom?: string[];
  /** Outside libraries worth naming (not checked). */
  libraries?: string;
}

export const FOLDER_RULES: FolderRule[] = [
  { folder: 'ramp', holds: 'the typed, signed HTTP client of the ramp service: signing, request layer, zod schemas, errors, pagination, call pacing, wallet-ownership proof', imports: [], libraries: 'undici, zod' },
  { folder: 'workflows', holds: 'deterministic workflow code and the message definitions (signals, queries, updates, search attributes, IDs, the trust rule) shared with clients', imports: ['observability', 'config'], typesFrom: ['ramp', 'activities', 'partner-events'], libraries: '`@temporalio/workflow`' },
  { folder: 'activities', holds: 'thin, idempotent activities around `ramp/`, and the partner event publishing activity', imports: ['ramp', 'workflows', 'client', 'partner-events', 'observability', 'attachments'], libraries: '`@temporalio/activity`' },
  { folder: 'workers', holds: 'the worker process: both task queues, versioning, metrics, shutdown', imports: ['ramp', 'workflows', 'activities', 'client', 'config', 'codec', 'attachments', 'partner-events', 'observability'], libraries: '`@temporalio/worker`' },
  { folder: 'webhooks', holds: 'the webhook receiver: HTTP in, Temporal out (direct routing, hand-off to ramp-event workflows), registration, the reconciliation schedule', imports: ['ramp', 'workflows', 'activities', 'client', 'config', 'codec', 'observability'], libraries: 'fastify, `@temporalio/client`' },
  { folder: 'client', holds: 'the typed partner/operator library (the public entry is `client/index.ts`), the contract, status and bulk actions', imports: ['workflows', 'config', 'codec', 'attachments', 'partner-events', 'observability'], libraries: '`@temporalio/client`' },
  { folder: 'partner-api', holds: 'the HTTP API for partner backends: HTTP in, the client library out', imports: ['client', 'workflows', 'config', 'partner-events', 'webhooks'], libraries: 'fastify' },
  { folder: 'partner-events', holds: 'partner events: the catalogue (zod), the event store (PostgreSQL, or an embedded log), Standard Webhooks signing and one delivery attempt, the endpoint of `listen`, the endpoints read from the environment', imports: ['codec', 'config'], libraries: 'standardwebhooks, pg' },
  { folder: 'observability', holds: 'the metric catalogue every rampflow metric is listed in, and the visibility scan behind the longest-waiter gauge', imports: ['workflows'], libraries: '`@temporalio/client`' },
  { folder: 'sandbox', holds: 'the local emulator of the ramp service', imports: ['ramp'], libraries: 'fastify' },
  { folder: 'cli', holds: 'the `rampflow` command line: one file per command, wiring the folders together', imports: ['ramp', 'workflows', 'workers', 'webhooks', 'client', 'partner-api', 'partner-events', 'sandbox', 'config', 'codec', 'dev'], libraries: 'commander' },
  { folder: 'config', holds: 'the one module that reads the environment (zod; one line per bad variable), its descriptions, and how every process logs', imports: [], libraries: 'zod, pino' },
  { folder: 'codec', holds: 'the payload codec (AES-256-GCM, key ids) every Temporal connection uses, and the codec server', imports: ['config', 'webhooks'], libraries: '`@temporalio/*`' },
  { folder: 'attachments', holds: 'the claim check: customers\' documents kept outside Temporal, only their reference and hash in a history', imports: ['config'], typesFrom: ['workflows'] },
  { folder: 'dev', holds: 'local tooling: the Go builds of the Temporal CLI, server and SQL tool, the dev-server launcher, the cluster profile, the docs generators and check', imports: ['ramp', 'workflows', 'workers', 'webhooks', 'client', 'partner-api', 'partner-events', 'sandbox', 'cli', 'config', 'codec', 'observability'] },
];

/** Folders whose imports are not checked: the tests and benchmarks may import anything. */
export const UNCHECKED_FOLDERS = ['test', 'bench'];

export interface FolderImport {
  file: string;
  line: number;
  folder: string;
  imported: string;
  typeOnly: boolean;
}

const IMPORT = /(?:^|\n)\s*(?:import|export)\s+(type\s+)?(?:[^'";]*?\sfrom\s+)?['"](\.{1,2}\/[^'"]+)['"]|\b(?:import|require)\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g;

function typeScriptFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : typeScriptFiles(path);
    return /\.(ts|mts|cts)$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Every import of a file in one of `FOLDER_RULES`'s folders from another of the project's top folders. */
export function crossFolderImports(root: string): FolderImport[] {
  const found: FolderImport[] = [];
  const topFolders = new Set(readdirSync(root, { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name));
  for (const { folder } of FOLDER_RULES) {
    for (const path of typeScriptFiles(join(root, folder))) {
      const text = readFileSync(path, 'utf8');
      for (const match of text.matchAll(IMPORT)) {
        const specifier = match[2] ?? match[3]!;
        const target = relative(root, resolve(dirname(path), specifier)).split(sep)[0]!;
        if (target === folder || !topFolders.has(target)) continue;
        const line = text.slice(0, match.index + match[0].length).split('\n').length;
        found.push({ file: relative(root, path), line, folder, imported: target, typeOnly: match[1] !== undefined });
      }
    }
  }
  return found;
}

/** The imports a folder's rule does not allow. */
export function importViolations(root: string): string[] {
  const rules = new Map(FOLDER_RULES.map((rule) => [rule.folder, rule]));
  return crossFolderImports(root)
    .filter(({ folder, imported, typeOnly }) => {
      const rule = rules.get(folder)!;
      return !(rule.imports.includes(imported) || (typeOnly && rule.typesFrom?.includes(imported)));
    })
    .map(({ file, line, imported, typeOnly }) => `${file}:${line} imports ${typeOnly ? 'types from ' : ''}${imported}/, which its folder may not (dev/docs/folder-rules.ts)`);
}

export const FOLDER_TABLE_START = '<!-- folder-rules:start (generated from dev/docs/folder-rules.ts by `npm run docs:generate`) -->';
export const FOLDER_TABLE_END = '<!-- folder-rules:end -->';

export function folderTableMarkdown(): string {
  const code = (folders: string[]): string => folders.map((folder) => `\`${folder}/\``).join(', ');
  return [
    '| folder | what lives there | may import (of ours) | libraries |',
    '| --- | --- | --- | --- |',
    ...FOLDER_RULES.map((rule) => {
      const imports = [rule.imports.length > 0 ? code(rule.imports) : 'nothing', ...(rule.typesFrom ? [`types only from ${code(rule.typesFrom)}`] : [])].join('; ');
      return `| \`${rule.folder}/\` | ${markdownCell(rule.holds)} | ${imports} | ${markdownCell(rule.libraries ?? '')} |`;
    }),
    `| \`${UNCHECKED_FOLDERS.join('/`, `')}/\` | the vitest suites; the benchmarks that print figures | anything | |`,
  ].join('\n');
}
