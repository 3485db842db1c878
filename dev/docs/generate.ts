/**
 * `npm run docs:generate`: writes every generated reference page under docs/reference/: the CLI, the
 * environment, the metrics, the partner event catalogue and the search attributes (dev/docs/reference-pages.ts), and the
 * client library's API reference (TypeDoc, dev/docs/client-api.ts); and the generated sections of
 * hand-written pages (the folder table of docs/architecture.md, the search-attribute command of
 * docs/deploying/temporal-cluster-or-cloud.md).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { CLIENT_API_DIR, generateClientApi } from './client-api';
import { GENERATED_SECTIONS, PROJECT_ROOT, REFERENCE_PAGES, withSection } from './reference-pages';

async function main(): Promise<void> {
  for (const page of REFERENCE_PAGES) {
    const path = join(PROJECT_ROOT, page.path);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, page.generate());
    process.stdout.write(`wrote ${page.path}\n`);
  }
  for (const section of GENERATED_SECTIONS) {
    const path = join(PROJECT_ROOT, section.path);
    writeFileSync(path, withSection(readFileSync(path, 'utf8'), section, section.generate()));
    process.stdout.write(`wrote the generated section of ${section.path}\n`);
  }
  await generateClientApi(PROJECT_ROOT, join(PROJECT_ROOT, CLIENT_API_DIR));
  process.stdout.write(`wrote ${CLIENT_API_DIR}/\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`docs:generate: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
