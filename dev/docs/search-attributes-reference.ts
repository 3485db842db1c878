/**
 * docs/reference/search-attributes.md, and the command block of the pages that register the attributes
 * by hand, from RAMP_SEARCH_ATTRIBUTES (observability/search-attributes.ts): a release that adds an
 * attribute changes every page that says how to register them.
 */
import { searchAttributeCreateCommand } from '../../workers/namespace-check';
import { RAMP_SEARCH_ATTRIBUTES } from '../../observability/search-attributes';
import { generatedNotice, markdownCell } from './markdown';

export const SEARCH_ATTRIBUTES_COMMAND_START =
  '<!-- search-attributes:start (generated from observability/search-attributes.ts by `npm run docs:generate`) -->';
export const SEARCH_ATTRIBUTES_COMMAND_END = '<!-- search-attributes:end -->';

/** The create command for every attribute, one `--name`/`--type` pair a line, against `$TEMPORAL_ADDRESS` and `$TEMPORAL_NAMESPACE`. */
export function searchAttributesCommandBlock(): string {
  const command = searchAttributeCreateCommand(RAMP_SEARCH_ATTRIBUTES, { namespace: '"$TEMPORAL_NAMESPACE"' });
  return ['```sh', command.replace(/ --name /g, ' \\\n  --name '), '```'].join('\n');
}

export function searchAttributesReferenceMarkdown(): string {
  return [
    '# Search attributes reference',
    '',
    generatedNotice('`observability/search-attributes.ts`'),
    '',
    "Every custom search attribute rampflow's workflows set. Each must be registered in the namespace, with",
    'this type, before the first worker starts: a workflow that sets an attribute the namespace lacks (or',
    'holds with another type) fails its workflow task with `BadSearchAttributes`, on every retry, so no',
    'journey would get past its first task. `rampflow worker` therefore checks its namespace at start and',
    'exits (non-zero) on one line naming each attribute that is missing or of another type, with the',
    '`temporal operator search-attribute` commands that repair it; a worker whose credentials may not list',
    "the namespace's attributes only warns.",
    '',
    '| attribute | type | what it holds, on which workflows |',
    '| --- | --- | --- |',
    ...RAMP_SEARCH_ATTRIBUTES.map(({ name, type, holds }) => `| \`${name}\` | ${type} | ${markdownCell(holds)} |`),
    '',
    '## Registering them',
    '',
    '**Locally and in the profiles:** `rampflow dev` and `npm start` (the dev server, `dev/dev-server.ts`)',
    'register them all, on a database file made by an earlier version too; the cluster profile',
    '(`npm run cluster`) and `docker-compose.yml` run `deploy/temporal-setup.sh`, which registers them all',
    '(`test/deploy/compose.test.ts` checks its list against this one).',
    '',
    '**A self-hosted cluster:** with the Temporal CLI pointed at it (`TEMPORAL_ADDRESS`, and its TLS flags',
    'where needed), each `--name` with its own `--type` (the CLI pairs them by position: one `--type` after',
    'several names registers only the first); creating an attribute that exists with the same type succeeds:',
    '',
    searchAttributesCommandBlock(),
    '',
    '**Temporal Cloud:** add each attribute above, with its type, in the Cloud UI or with `tcld`.',
    '',
    "When a release adds an attribute, register it before the release's workers start: they refuse to start",
    "without it, and the old version's workers go on meanwhile",
    '([Deploying a new version](../deploying/versioning.md#deploying-a-new-version)).',
    '',
  ].join('\n');
}
