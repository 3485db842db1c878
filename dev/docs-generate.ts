/**
 * `npm run docs:generate`: writes every generated reference page under docs/reference/ (the CLI, the
 * environment, the metrics, the partner event catalogue; dev/docs/reference-pages.ts). The client
 * library's API reference is TypeDoc's: `npm run docs:client-api`.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { PROJECT_ROOT, REFERENCE_PAGES } from './docs/reference-pages';

for (const page of REFERENCE_PAGES) {
  const path = join(PROJECT_ROOT, page.path);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, page.generate());
  process.stdout.write(`wrote ${page.path}\n`);
}
