/**
 * docs/reference/client-api/: the client library's API reference, Markdown made by TypeDoc (with
 * typedoc-plugin-markdown) from its public entry, client/index.ts (options in typedoc.json). Markdown
 * rather than HTML so that it is read where the rest of the documentation is (GitHub, a clone), the
 * link check covers it, and a test can compare it with what TypeDoc makes now
 * (test/docs/client-api.test.ts). `npm run docs:generate` writes it with the other reference pages.
 *
 * TypeDoc's validation runs too, its warnings treated as errors: a type the public API names (a
 * member's type, a field's) must itself be exported from client/index.ts, or the reference would name
 * it without a page. typedoc.json's `intentionallyNotExported` lists the few that stay out: the zod
 * schemas the documented types are written from (the types are the API, the schemas how they are
 * written) and the workflow functions the handle types are typed by (the workers' code, not the
 * client's).
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
    // Quiet still prints warnings: each is a failure (the validation's), and says what to export.
    ...(quiet ? { logLevel: LogLevel.Warn } : {}),
  });
  const project = await app.convert();
  if (!project || app.logger.hasErrors())
    throw new Error('TypeDoc could not document client/index.ts (its errors are above)');
  app.validate(project);
  if (app.logger.hasErrors() || app.logger.validationWarningCount > 0) {
    throw new Error(
      "TypeDoc's validation failed: the client API names a type client/index.ts does not export, or links to nothing (its warnings are above)",
    );
  }
  await app.generateOutputs(project);
  if (app.logger.hasErrors())
    throw new Error('TypeDoc could not write the client API reference (its errors are above)');
}
