/**
 * The documentation check (dev/docs/docs-check.ts) on the project's own documentation, and on small
 * pages made to break it, so a check that stopped finding anything would fail here too.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildProgram } from '../../cli/main';
import { anchorsOf, checkCommands, checkLinks, documentationFiles, type DocsProblem } from '../../dev/docs/docs-check';
import { PROJECT_ROOT } from '../support/run';

const scripts = (
  JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
).scripts;
const lines = (problems: DocsProblem[]): string[] =>
  problems.map(({ file, line, problem }) => `${file}:${line}: ${problem}`);

describe('the documentation', () => {
  const files = documentationFiles(PROJECT_ROOT);

  it('covers the README, docs/, bench/README.md and deploy/README.md', () => {
    expect(files).toEqual(
      expect.arrayContaining([
        'README.md',
        'bench/README.md',
        'deploy/README.md',
        'docs/README.md',
        'docs/reference/cli.md',
      ]),
    );
  });

  it('links only to files that exist and to headings that exist', () => {
    expect(lines(checkLinks(PROJECT_ROOT, files))).toEqual([]);
  });

  it('names only rampflow commands, flags and npm scripts that exist', () => {
    expect(lines(checkCommands(PROJECT_ROOT, files, buildProgram(), scripts))).toEqual([]);
  });

  it('keeps the README short: at most 250 lines', () => {
    expect(readFileSync(join(PROJECT_ROOT, 'README.md'), 'utf8').split('\n').length).toBeLessThanOrEqual(251);
  });
});

describe('the documentation check', () => {
  const root = mkdtempSync(join(tmpdir(), 'rampflow-docs-check-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const page = (path: string, text: string): string => {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
    return path;
  };

  it('slugs headings as GitHub does', () => {
    const anchors = anchorsOf(
      '# Direct routing (`WEBHOOK_ROUTING=direct`)\n## What a customer costs (`npm run bench -- cost`)\n## Notes\n## Notes\n```sh\n# not a heading\n```\n## [Linked](x.md) *title*\n',
    );
    expect([...anchors]).toEqual([
      'direct-routing-webhook_routingdirect',
      'what-a-customer-costs-npm-run-bench----cost',
      'notes',
      'notes-1',
      'linked-title',
    ]);
  });

  it('finds a link to a missing file, a missing anchor here and in another page, and leaves external links and code alone', () => {
    page('docs/other.md', '# Other page\n## A section\n');
    const file = page(
      'docs/page.md',
      [
        '# Page',
        '[fine](other.md#a-section) [fine too](#page) [web](https://example.com/x.md) [outside](../../outside.md)',
        '[gone](missing.md) [no anchor](other.md#no-such-section) [here](#nowhere)',
        '`[in code](missing-too.md)`',
        '```md',
        '[in a block](missing-three.md)',
        '```',
      ].join('\n'),
    );
    expect(lines(checkLinks(root, [file]))).toEqual([
      'docs/page.md:3: links missing.md: docs/missing.md does not exist',
      'docs/page.md:3: links other.md#no-such-section: docs/other.md has no heading with the anchor #no-such-section',
      'docs/page.md:3: links #nowhere: docs/page.md has no heading with the anchor #nowhere',
    ]);
  });

  it('finds commands, subcommands, flags and npm scripts that do not exist, in blocks and code spans', () => {
    const file = page(
      'commands.md',
      [
        '```sh',
        'npx rampflow journey status user-42 --json        # fine',
        'npx rampflow journey stats user-42',
        'npx rampflow jorney list',
        'npx rampflow deposit list --customer user-42 --colour',
        'npm run typecheck && npm run lint && npm run no-such-script',
        '[rampflow dev] demo journey: output, not a command',
        '```',
        'Run `npx rampflow journey retry\\|cancel --all`, `rampflow partner-events listne` and `npm run bench -- cost`.',
      ].join('\n'),
    );
    expect(lines(checkCommands(root, [file], buildProgram(), scripts))).toEqual([
      'commands.md:3: `rampflow journey stats user-42`: `journey` has no command stats',
      'commands.md:4: `rampflow jorney list`: `rampflow` has no command jorney',
      'commands.md:5: `rampflow deposit list --customer user-42 --colour`: `list` has no option --colour',
      'commands.md:6: `npm run no-such-script`: package.json has no script no-such-script',
      'commands.md:9: `rampflow partner-events listne`: `partner-events` has no command listne',
    ]);
  });
});
