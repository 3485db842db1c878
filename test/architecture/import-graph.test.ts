/**
 * The shape of rampflow's imports (issue 27): no module reaches itself again through what it imports,
 * and config/ imports nothing of ours (README, the map of the folders), so any process can read its
 * environment without loading workflows, the ramp client or the receiver. madge reads the imports as
 * TypeScript resolves them, type-only ones included: a cycle of types still ties two modules together.
 * eslint.config.mjs refuses such an import in config/ as it is written; this checks the whole tree.
 */
import { join, resolve } from 'node:path';
import madge from 'madge';
import { beforeAll, describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');

let imports: Record<string, string[]>;
let cycles: string[][];

beforeAll(async () => {
  const graph = await madge(ROOT, {
    fileExtensions: ['ts'],
    tsConfig: join(ROOT, 'tsconfig.json'),
    excludeRegExp: [/^node_modules\//, /^\.tools\//, /^\.data\//, /^dist\//, /^coverage\//, /\.d\.ts$/],
  });
  imports = graph.obj();
  cycles = graph.circular();
}, 120_000);

describe('the import graph', () => {
  it('reads the whole tree', () => {
    // A graph of a handful of files would pass the checks below without saying anything.
    expect(Object.keys(imports).filter((file) => file.startsWith('workflows/')).length).toBeGreaterThan(30);
    expect(imports['config/env.ts']).toBeDefined();
  });

  it('has no import cycle', () => {
    expect(cycles).toEqual([]);
  });

  it('has config/ import nothing of ours outside config/', () => {
    const reachingOut = Object.entries(imports)
      .filter(([file]) => file.startsWith('config/'))
      .flatMap(([file, targets]) =>
        targets.filter((target) => !target.startsWith('config/')).map((target) => `${file} -> ${target}`),
      );
    expect(reachingOut).toEqual([]);
  });
});
