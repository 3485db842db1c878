/**
 * The folders inside workflows/ import down only (docs/architecture.md, "Reading the workflows"):
 * common/ at the bottom, then partner-events/, then the workflows, none of which imports another;
 * index.ts, versioning-behaviours.ts and schemas.ts on top. schemas.ts is zod, so below it a workflow
 * may take its types only: a value import would bring zod into the workflow bundle.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../support/run';

const WORKFLOWS = join(PROJECT_ROOT, 'workflows');
const WORKFLOW_FOLDERS = ['journey', 'deposit', 'payout', 'ramp-event', 'reconcile'];

/** What each folder may import, besides itself; `schemas` is always types only. */
const MAY_IMPORT: Record<string, string[]> = {
  common: ['generated'],
  'partner-events': ['common'],
  ...Object.fromEntries(WORKFLOW_FOLDERS.map((folder) => [folder, ['common', 'partner-events']])),
};

interface Arrow {
  file: string;
  from: string;
  to: string;
  typeOnly: boolean;
}

/** The place of a file inside workflows/: its folder, or the top-level file's own name. */
function placeOf(file: string): string {
  const [first, second] = relative(WORKFLOWS, file).split(sep);
  return second === undefined ? first!.replace(/\.ts$/, '') : first!;
}

function arrowsIn(folder: string): Arrow[] {
  const arrows: Arrow[] = [];
  for (const name of readdirSync(join(WORKFLOWS, folder)).filter((name) => name.endsWith('.ts'))) {
    const file = join(WORKFLOWS, folder, name);
    const source = readFileSync(file, 'utf8');
    for (const match of source.matchAll(/^(import|export)(\s+type)?\s[^;]*?from '(\.[^']+)';/gms)) {
      const target = resolve(dirname(file), match[3]!);
      if (!target.startsWith(WORKFLOWS + sep)) continue;
      const clause = match[0];
      const typeOnly =
        match[2] !== undefined ||
        /^import\s*\{([^}]*)\}/s
          .exec(clause)?.[1]!
          .split(',')
          .filter((name) => name.trim())
          .every((name) => name.trim().startsWith('type ')) === true;
      arrows.push({ file: relative(PROJECT_ROOT, file), from: folder, to: placeOf(`${target}.ts`), typeOnly });
    }
  }
  return arrows;
}

describe('the folders inside workflows/', () => {
  it('are the ones the page names', () => {
    const folders = readdirSync(WORKFLOWS, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && entry.name !== 'generated')
      .map((entry) => entry.name)
      .sort();
    expect(folders).toEqual(Object.keys(MAY_IMPORT).sort());
  });

  it('import down only, and take types only from the zod schemas', () => {
    const wrong = Object.keys(MAY_IMPORT)
      .flatMap(arrowsIn)
      .filter(({ from, to, typeOnly }) =>
        to === 'schemas' ? !typeOnly : to !== from && !MAY_IMPORT[from]!.includes(to),
      )
      .map(({ file, to, typeOnly }) => `${file} imports ${to}${typeOnly ? ' (types)' : ''}`);
    expect(wrong).toEqual([]);
  });

  it('sees the arrows it checks', () => {
    // Guards the parser: the deposit takes the shared messages, and types from the schemas.
    const deposit = arrowsIn('deposit');
    expect(deposit.some(({ to }) => to === 'common')).toBe(true);
    expect(deposit.some(({ to, typeOnly }) => to === 'schemas' && typeOnly)).toBe(true);
  });
});
