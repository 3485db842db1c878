/**
 * docs/reference/client-api/: the client library's API reference, Markdown made by TypeDoc (with
 * typedoc-plugin-markdown) from its public entry, client/index.ts (options in typedoc.json). Markdown
 * rather than HTML so that it is read where the rest of the documentation is (GitHub, a clone), the
 * link check covers it, and a test can compare it with what TypeDoc makes now
 * (test/docs/client-api.test.ts). `npm run docs:generate` writes it with the other reference pages.
 */
import { join } from 'node:path';

export const CLIENT_API_DIR = join('docs', 'reference', 'client-api');

/** Runs TypeDoc with typedoc.json, writing the Markdown to `outDir`; throws when TypeDoc reports an error. */
export async function generateClientApi(projectRoot: string, outDir: string, quiet = false): Promise<void> {
  // TypeDoc is an ES module; this file may run as CommonJS (tsx), hence the dynamic import.
  const { Application, LogLevel } = await import('typedoc');
  const app = await Application.bootstrapWithPlugins({
    options: join(projectRoot, 'typedoc.json'),
    tsconfig: join(projectRoot, 'tsconfig.typedoc.json'),
    entryPoints: [join(projectRoot, 'client', 'index.ts')],
    out: outDir,
    ...(quiet ? { logLevel: LogLevel.Error } : {}),
  });
  const project = await app.convert();
  if (!project || app.logger.hasErrors()) throw new Error('TypeDoc could not document client/index.ts (its errors are above)');
  await app.generateOutputs(project);
  if (app.logger.hasErrors()) throw new Error('TypeDoc could not write the client API reference (its errors are above)');
}
