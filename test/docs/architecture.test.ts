/**
 * docs/architecture.md's folder rules hold in the code: no file imports a folder its own folder may
 * not (dev/docs/folder-rules.ts). A new arrow between folders is a decision: change the rule, and the
 * page with it (`npm run docs:generate`).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { crossFolderImports, FOLDER_RULES, importViolations } from '../../dev/docs/folder-rules';
import { PROJECT_ROOT } from '../support/run';

describe('the folder rules of docs/architecture.md', () => {
  it("hold: every import between the project's folders is one its folder may make", () => {
    expect(crossFolderImports(PROJECT_ROOT).length).toBeGreaterThan(100);
    expect(importViolations(PROJECT_ROOT)).toEqual([]);
  });

  const root = mkdtempSync(join(tmpdir(), 'rampflow-folder-rules-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('catch a value import where only types are allowed, and an import of a folder not allowed at all', () => {
    for (const { folder } of FOLDER_RULES) mkdirSync(join(root, folder), { recursive: true });
    writeFileSync(
      join(root, 'workflows', 'fine.ts'),
      "import type { RampClient } from '../ramp';\nimport { METRICS } from '../observability/metric-catalogue';\n",
    );
    writeFileSync(join(root, 'workflows', 'bad.ts'), "import { RampClient } from '../ramp';\n");
    writeFileSync(
      join(root, 'ramp', 'bad.ts'),
      "export {\n  parseEnv,\n} from '../config/env';\nconst lazy = () => import('../client');\n",
    );
    expect(importViolations(root)).toEqual([
      'ramp/bad.ts:3 imports config/, which its folder may not (dev/docs/folder-rules.ts)',
      'ramp/bad.ts:4 imports client/, which its folder may not (dev/docs/folder-rules.ts)',
      'workflows/bad.ts:1 imports ramp/, which its folder may not (dev/docs/folder-rules.ts)',
    ]);
  });
});
