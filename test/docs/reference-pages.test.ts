/**
 * Each page under docs/reference/ is what its generator makes from the code now (dev/docs/
 * reference-pages.ts): a command, flag, variable, metric or event type added, renamed or removed
 * without `npm run docs:generate` fails here, naming the page.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../cli/main';
import { ENV_DESCRIPTIONS } from '../../config/env-descriptions';
import { commandPath, commandsOf, tableCode } from '../../dev/docs/cli-reference';
import { environmentVariables } from '../../dev/docs/environment-reference';
import { GENERATED_SECTIONS, PROJECT_ROOT, REFERENCE_PAGES, withSection } from '../../dev/docs/reference-pages';

describe('the generated reference pages', () => {
  for (const page of REFERENCE_PAGES) {
    it(`${page.path} is up to date (run \`npm run docs:generate\`)`, () => {
      const path = join(PROJECT_ROOT, page.path);
      expect(existsSync(path), `${page.path} exists`).toBe(true);
      expect(readFileSync(path, 'utf8'), `${page.path} is stale: run \`npm run docs:generate\``).toBe(page.generate());
    });
  }

  it('the CLI page has a section for every command and every flag of the commander program', () => {
    const page = readFileSync(join(PROJECT_ROOT, 'docs', 'reference', 'cli.md'), 'utf8');
    const commands = commandsOf(buildProgram());
    expect(commands.length).toBeGreaterThan(30);
    for (const command of commands) {
      expect(page, commandPath(command)).toContain(`## \`${commandPath(command)}\``);
      for (const option of command.options)
        expect(page, `${commandPath(command)} ${option.flags}`).toContain(`| \`${tableCode(option.flags)}\` |`);
    }
  });

  it('the environment page lists every variable the config schemas read, each described and with an anchor of its own', () => {
    const page = readFileSync(join(PROJECT_ROOT, 'docs', 'reference', 'environment.md'), 'utf8');
    const variables = environmentVariables();
    expect(variables.length).toBeGreaterThan(40);
    for (const { name } of variables) {
      expect(ENV_DESCRIPTIONS[name]?.description, `${name} is described in config/env-descriptions.ts`).toBeTruthy();
      // The anchor other pages link to (docs/deploying/webhooks.md), rather than tabling the variable again.
      expect(page, name).toContain(`| <a id="${name.toLowerCase()}"></a>\`${name}\` |`);
    }
  });
});

describe('the generated sections of hand-written pages', () => {
  for (const section of GENERATED_SECTIONS) {
    it(`${section.path}'s generated section is up to date (run \`npm run docs:generate\`)`, () => {
      const page = readFileSync(join(PROJECT_ROOT, section.path), 'utf8');
      expect(page, `${section.path} is stale: run \`npm run docs:generate\``).toBe(
        withSection(page, section, section.generate()),
      );
    });
  }
});
