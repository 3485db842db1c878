/**
 * What each folder holds, its layer, and which of the project's other folders it may import: the table
 * of docs/architecture.md is generated from this list (`npm run docs:generate`).
 * test/docs/architecture.test.ts fails when a file imports a folder its own folder may not, or when the
 * page's table is stale; test/architecture/layering.test.ts reads the layers from the page and fails on
 * an arrow that does not go down. Change the rule here, in the same change as the import, and say why.
 * (`workflows/` has stricter rules still, enforced by ESLint: no Node built-ins, `ramp/` and
 * `activities/` as types only.) test/, bench/ and chaos/ may import anything.
 *
 * A rule's folder is a top-level folder, or a sub-folder with a layer of its own (`dev/docs`): a file
 * belongs to the longest rule folder that holds it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { markdownCell } from './markdown';

export interface FolderRule {
  folder: string;
  /**
   * Its place in the layering, 0 at the bottom: a folder imports only folders of lower layers, except
   * the types its `typesFrom` names (types load no code).
   */
  layer: number;
  holds: string;
  /** Folders of ours it may import values from (and types). */
  imports: string[];
  /** Folders of ours it may import types only from. */
  typesFrom?: string[];
  /** Outside libraries worth naming (not checked). */
  libraries?: string;
}

// Top to bottom, as the page's table lists them.
export const FOLDER_RULES: FolderRule[] = [
  {
    folder: 'dev/docs',
    layer: 10,
    holds: 'the docs generators and the docs check: they read the folders below, the CLI included, to document them',
    imports: [
      'ramp',
      'workflows',
      'workers',
      'webhooks',
      'client',
      'partner-api',
      'partner-events',
      'sandbox',
      'cli',
      'config',
      'codec',
      'observability',
    ],
  },
  {
    folder: 'cli',
    layer: 9,
    holds: 'the `rampflow` command line: one file per command, wiring the folders together',
    imports: [
      'ramp',
      'workflows',
      'workers',
      'webhooks',
      'client',
      'partner-api',
      'partner-events',
      'sandbox',
      'config',
      'codec',
      'observability',
      'dev',
    ],
    libraries: 'commander',
  },
  {
    folder: 'dev',
    layer: 8,
    holds:
      'local tooling: the Go builds of the Temporal CLI, server and SQL tool, the dev-server launcher and local stack `rampflow dev` runs, the cluster profile',
    imports: [
      'ramp',
      'workflows',
      'workers',
      'webhooks',
      'client',
      'partner-api',
      'partner-events',
      'sandbox',
      'config',
      'codec',
      'observability',
    ],
  },
  {
    folder: 'workers',
    layer: 7,
    holds: 'the worker process: both task queues, versioning, metrics, shutdown',
    imports: [
      'ramp',
      'workflows',
      'activities',
      'client',
      'config',
      'codec',
      'attachments',
      'partner-events',
      'observability',
    ],
    libraries: '`@temporalio/worker`',
  },
  {
    folder: 'webhooks',
    layer: 7,
    holds:
      'the webhook receiver: HTTP in, Temporal out (direct routing, hand-off to ramp-event workflows), registration, the reconciliation schedule',
    imports: ['ramp', 'workflows', 'activities', 'client', 'config', 'codec', 'observability'],
    libraries: 'fastify, `@temporalio/client`',
  },
  {
    folder: 'activities',
    layer: 6,
    holds: 'thin, idempotent activities around `ramp/`, and the partner event publishing activity',
    imports: ['ramp', 'workflows', 'client', 'partner-events', 'observability', 'attachments'],
    libraries: '`@temporalio/activity`',
  },
  {
    folder: 'partner-api',
    layer: 6,
    holds: 'the HTTP API for partner backends: HTTP in, the client library out',
    imports: ['client', 'workflows', 'config', 'partner-events'],
    libraries: 'fastify',
  },
  {
    folder: 'client',
    layer: 5,
    holds:
      'the typed partner/operator library (the public entry is `client/index.ts`), the contract, status and bulk actions',
    imports: ['workflows', 'config', 'codec', 'attachments', 'partner-events', 'observability'],
    libraries: '`@temporalio/client`',
  },
  {
    folder: 'attachments',
    layer: 4,
    holds: "the claim check: customers' documents kept outside Temporal, only their reference and hash in a history",
    imports: ['config'],
    typesFrom: ['workflows'],
  },
  {
    folder: 'workflows',
    layer: 3,
    holds:
      "deterministic workflow code and the message definitions (signals, queries, updates, IDs, the trust rule) shared with clients; the activities' signatures as types only (`proxyActivities<typeof …>`), the one arrow up, which loads no code",
    imports: ['observability', 'config'],
    typesFrom: ['ramp', 'activities', 'partner-events'],
    libraries: '`@temporalio/workflow`',
  },
  {
    folder: 'partner-events',
    layer: 2,
    holds:
      'partner events: the catalogue (zod), the event store (PostgreSQL, or an embedded log), Standard Webhooks signing and one delivery attempt, the endpoint of `listen`, the endpoints read from the environment',
    imports: ['codec', 'config'],
    libraries: 'standardwebhooks, pg',
  },
  {
    folder: 'codec',
    layer: 1,
    holds: 'the payload codec (AES-256-GCM, key ids) every Temporal connection uses, and the codec server',
    imports: ['config'],
    libraries: '`@temporalio/*`',
  },
  {
    folder: 'sandbox',
    layer: 1,
    holds: 'the local emulator of the ramp service',
    imports: ['ramp'],
    libraries: 'fastify',
  },
  {
    folder: 'observability',
    layer: 0,
    holds:
      'the metric catalogue every rampflow metric is listed in, the search attributes workflows index, and the visibility scan behind the longest-waiter gauge',
    imports: [],
    libraries: '`@temporalio/client`',
  },
  {
    folder: 'config',
    layer: 0,
    holds:
      'the one module that reads the environment (zod; one line per bad variable), its descriptions, how every process logs, and how a configured secret token is checked',
    imports: [],
    libraries: 'zod, pino',
  },
  {
    folder: 'ramp',
    layer: 0,
    holds:
      'the typed, signed HTTP client of the ramp service: signing, request layer, zod schemas, errors, pagination, call pacing, wallet-ownership proof',
    imports: [],
    libraries: 'undici, zod',
  },
];

/** Folders above every layer, whose imports are not checked: the tests, benchmarks and chaos run may import anything. */
export const UNCHECKED_FOLDERS = ['test', 'bench', 'chaos'];

export interface FolderImport {
  file: string;
  line: number;
  folder: string;
  imported: string;
  typeOnly: boolean;
}

const IMPORT =
  /(?:^|\n)\s*(?:import|export)\s+(type\s+)?(?:[^'";]*?\sfrom\s+)?['"](\.{1,2}\/[^'"]+)['"]|\b(?:import|require)\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g;

function typeScriptFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : typeScriptFiles(path);
    return /\.(ts|mts|cts)$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The rule folder a project path belongs to: the longest that holds it, or its top-level folder. */
function unitOf(path: string): string {
  const owner = FOLDER_RULES.map(({ folder }) => folder)
    .filter((folder) => path === folder || path.startsWith(`${folder}/`))
    .sort((a, b) => b.length - a.length)[0];
  return owner ?? path.split('/')[0]!;
}

/** Every import of a file in one of `FOLDER_RULES`'s folders from another of the project's folders. */
export function crossFolderImports(root: string): FolderImport[] {
  const found: FolderImport[] = [];
  const topFolders = new Set(
    readdirSync(root, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name),
  );
  const ruledTopFolders = new Set(FOLDER_RULES.map(({ folder }) => folder.split('/')[0]!));
  for (const top of ruledTopFolders) {
    for (const path of typeScriptFiles(join(root, top))) {
      const file = relative(root, path).split(sep).join('/');
      const folder = unitOf(file);
      const text = readFileSync(path, 'utf8');
      for (const match of text.matchAll(IMPORT)) {
        const specifier = match[2] ?? match[3]!;
        const targetPath = relative(root, resolve(dirname(path), specifier))
          .split(sep)
          .join('/');
        const target = unitOf(targetPath);
        if (target === folder || !topFolders.has(targetPath.split('/')[0]!)) continue;
        const line = text.slice(0, match.index + match[0].length).split('\n').length;
        found.push({ file, line, folder, imported: target, typeOnly: match[1] !== undefined });
      }
    }
  }
  return found.sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line);
}

/** The imports a folder's rule does not allow. */
export function importViolations(root: string): string[] {
  const rules = new Map(FOLDER_RULES.map((rule) => [rule.folder, rule]));
  return crossFolderImports(root)
    .filter(({ folder, imported, typeOnly }) => {
      const rule = rules.get(folder)!;
      return !(rule.imports.includes(imported) || (typeOnly && rule.typesFrom?.includes(imported)));
    })
    .map(
      ({ file, line, imported, typeOnly }) =>
        `${file}:${line} imports ${typeOnly ? 'types from ' : ''}${imported}/, which its folder may not (dev/docs/folder-rules.ts)`,
    );
}

export const FOLDER_TABLE_START =
  '<!-- folder-rules:start (generated from dev/docs/folder-rules.ts by `npm run docs:generate`) -->';
export const FOLDER_TABLE_END = '<!-- folder-rules:end -->';

export function folderTableMarkdown(): string {
  const code = (folders: string[]): string => folders.map((folder) => `\`${folder}/\``).join(', ');
  return [
    '| layer | folder | what lives there | may import (of ours) | libraries |',
    '| --- | --- | --- | --- | --- |',
    ...FOLDER_RULES.map((rule) => {
      const imports = [
        rule.imports.length > 0 ? code(rule.imports) : 'nothing',
        ...(rule.typesFrom ? [`types only from ${code(rule.typesFrom)}`] : []),
      ].join('; ');
      return `| ${rule.layer} | \`${rule.folder}/\` | ${markdownCell(rule.holds)} | ${imports} | ${markdownCell(rule.libraries ?? '')} |`;
    }),
    `| top | \`${UNCHECKED_FOLDERS.join('/`, `')}/\` | the vitest suites; the benchmarks that print figures; the chaos run | anything | |`,
  ].join('\n');
}
