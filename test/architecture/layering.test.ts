/**
 * Arrows go down only (issue 38): docs/architecture.md's folder table gives every folder a layer, and
 * this reads the layers from the page itself and fails on an import that does not go to a lower layer.
 * The one kind of arrow up the page may state is "types only from": types load no code (workflows/
 * names the activities' signatures so). Every folder that holds TypeScript must be on the page.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { crossFolderImports, FOLDER_RULES, FOLDER_TABLE_END, FOLDER_TABLE_START } from '../../dev/docs/folder-rules';
import { PROJECT_ROOT } from '../support/run';

interface Layer {
  layer: number;
  imports: string[];
  typesFrom: string[];
}

const TOP = Number.POSITIVE_INFINITY;

/** The folder table of docs/architecture.md: folder -> its layer and what it may import. */
function layersOnThePage(): Map<string, Layer> {
  const page = readFileSync(join(PROJECT_ROOT, 'docs', 'architecture.md'), 'utf8');
  const table = page.slice(
    page.indexOf(FOLDER_TABLE_START) + FOLDER_TABLE_START.length,
    page.indexOf(FOLDER_TABLE_END),
  );
  const folders = (cell: string): string[] => [...cell.matchAll(/`([^`]+)\/`/g)].map((match) => match[1]!);
  const layers = new Map<string, Layer>();
  for (const row of table.split('\n').filter((line) => /^\| (\d+|top) \|/.test(line))) {
    const [layerCell, folderCell, , importsCell] = row.split(' | ').map((cell) => cell.replace(/^\| /, ''));
    const [values, types = ''] = importsCell!.split('types only from');
    const layer = layerCell === 'top' ? TOP : Number(layerCell);
    for (const folder of folders(folderCell!))
      layers.set(folder, { layer, imports: folders(values!), typesFrom: folders(types) });
  }
  return layers;
}

/** The imports of `root`'s folders that do not go to a lower layer, and are not types the page allows. */
function arrowsUp(root: string, layers: Map<string, Layer>): string[] {
  const layerOf = (folder: string): number => layers.get(folder)?.layer ?? Number.NaN;
  return crossFolderImports(root)
    .filter(({ folder, imported, typeOnly }) => {
      if (layerOf(imported) < layerOf(folder)) return false;
      return !(typeOnly && layers.get(folder)?.typesFrom.includes(imported));
    })
    .map(
      ({ file, line, folder, imported }) =>
        `${file}:${line}: ${folder}/ (layer ${layerOf(folder)}) imports ${imported}/ (layer ${layerOf(imported)})`,
    );
}

describe('the layering of docs/architecture.md', () => {
  const layers = layersOnThePage();

  it('is on the page, for every folder that holds TypeScript', () => {
    const withTypeScript = readdirSync(PROJECT_ROOT, { withFileTypes: true })
      .filter(
        (entry) => entry.isDirectory() && !['node_modules', 'docs'].includes(entry.name) && !entry.name.startsWith('.'),
      )
      .map((entry) => entry.name)
      .filter((folder) =>
        readdirSync(join(PROJECT_ROOT, folder), { recursive: true, encoding: 'utf8' }).some((file) =>
          /\.(ts|mts|cts)$/.test(file),
        ),
      );
    expect(withTypeScript.length).toBeGreaterThan(15);
    expect(withTypeScript.filter((folder) => !layers.has(folder))).toEqual([]);
  });

  it('allows, in its own table, value imports of lower layers only', () => {
    const upwards = [...layers].flatMap(([folder, { layer, imports }]) =>
      imports
        .filter((imported) => !((layers.get(imported)?.layer ?? TOP) < layer))
        .map((imported) => `${folder}/ may import ${imported}/`),
    );
    expect(upwards).toEqual([]);
  });

  it('holds in the code: every import between folders goes down', () => {
    expect(crossFolderImports(PROJECT_ROOT).length).toBeGreaterThan(100);
    expect(arrowsUp(PROJECT_ROOT, layers)).toEqual([]);
  });

  const root = mkdtempSync(join(tmpdir(), 'rampflow-layering-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("catches an arrow up, and one within a layer, but lets the page's types-only arrow through", () => {
    for (const { folder } of FOLDER_RULES) mkdirSync(join(root, folder), { recursive: true });
    writeFileSync(
      join(root, 'observability', 'scan.ts'),
      "import { RampStage } from '../workflows/search-attributes';\n",
    );
    writeFileSync(join(root, 'codec', 'server.ts'), "import { tokenMatches } from '../sandbox/token';\n");
    writeFileSync(join(root, 'workflows', 'steps.ts'), "import type * as activities from '../activities';\n");
    writeFileSync(join(root, 'cli', 'docs.ts'), "import { pages } from '../dev/docs/reference-pages';\n");
    writeFileSync(join(root, 'dev', 'docs', 'reference-pages.ts'), "import { buildProgram } from '../../cli/main';\n");
    expect(arrowsUp(root, layers).sort()).toEqual([
      'cli/docs.ts:1: cli/ (layer 9) imports dev/docs/ (layer 10)',
      'codec/server.ts:1: codec/ (layer 1) imports sandbox/ (layer 1)',
      'observability/scan.ts:1: observability/ (layer 0) imports workflows/ (layer 3)',
    ]);
  });
});
