/**
 * The reference pages under docs/reference/, each generated from the code it documents, and the
 * generated sections of hand-written pages (between markers). `npm run docs:generate` writes them
 * (dev/docs/generate.ts); test/docs/reference-pages.test.ts fails when a committed page or section
 * differs from what its generator makes now.
 */
import { join } from 'node:path';
import { buildProgram } from '../../cli/main';
import { METRICS_TABLE_END, METRICS_TABLE_START, metricsTableMarkdown } from '../../observability/metric-catalogue';
import { partnerEventCatalogueMarkdown } from '../../partner-events/catalogue-markdown';
import { cliReferenceMarkdown } from './cli-reference';
import { environmentReferenceMarkdown } from './environment-reference';
import { FOLDER_TABLE_END, FOLDER_TABLE_START, folderTableMarkdown } from './folder-rules';
import { generatedNotice } from './markdown';
import {
  SEARCH_ATTRIBUTES_COMMAND_END,
  SEARCH_ATTRIBUTES_COMMAND_START,
  searchAttributesCommandBlock,
  searchAttributesReferenceMarkdown,
} from './search-attributes-reference';

export const PROJECT_ROOT = join(__dirname, '..', '..');

export interface ReferencePage {
  /** Relative to the project root. */
  path: string;
  generate: () => string;
}

function metricsPage(): string {
  return [
    '# Metrics reference',
    '',
    generatedNotice('`observability/metric-catalogue.ts`'),
    '',
    'Every rampflow metric, as the catalogue lists it: a test fails when code emits a metric the catalogue',
    'lacks or the catalogue lists one nothing emits. The worker serves them on',
    "`http://<worker>:$WORKER_METRICS_PORT/metrics` beside the Temporal SDK's own (durations in seconds), the",
    'receiver on `GET /metrics`. No label ever holds a customer id, an externalId or an amount. How to read',
    'them, the alerts and their runbooks: [Metrics and alerts](../operating/metrics-and-alerts.md).',
    '',
    METRICS_TABLE_START,
    metricsTableMarkdown(),
    METRICS_TABLE_END,
    '',
  ].join('\n');
}

function partnerEventsPage(): string {
  return [
    '# Partner event catalogue',
    '',
    generatedNotice('`partner-events/catalogue.ts`'),
    '',
    "Every partner event rampflow sends to a partner's backend, with what its `data` holds (`?`: may be",
    'absent). `npx rampflow partner-events catalogue` prints the same table; the JSON Schemas are in',
    '`contract/rampflow.contract.json` (`partnerEvents`). Each event travels in the envelope',
    '`{id, type, timestamp, sequence, externalId | payoutReference, data}`; delivery, order, retries and',
    'verifying a delivery: [Partner events](../integrating/partner-events.md).',
    '',
    partnerEventCatalogueMarkdown(),
    '',
  ].join('\n');
}

/** A generated section of a hand-written page: the text between two markers. */
export interface GeneratedSection {
  path: string;
  start: string;
  end: string;
  generate: () => string;
}

export const GENERATED_SECTIONS: GeneratedSection[] = [
  { path: 'docs/architecture.md', start: FOLDER_TABLE_START, end: FOLDER_TABLE_END, generate: folderTableMarkdown },
  {
    path: 'docs/deploying/temporal-cluster-or-cloud.md',
    start: SEARCH_ATTRIBUTES_COMMAND_START,
    end: SEARCH_ATTRIBUTES_COMMAND_END,
    generate: searchAttributesCommandBlock,
  },
];

/** `page` with the section between its markers replaced by `body`; throws when the markers are missing. */
export function withSection(page: string, section: GeneratedSection, body: string): string {
  const start = page.indexOf(section.start);
  const end = page.indexOf(section.end);
  if (start < 0 || end < start) throw new Error(`${section.path} has no markers ${section.start} … ${section.end}`);
  return `${page.slice(0, start + section.start.length)}\n${body}\n${page.slice(end)}`;
}

export const REFERENCE_PAGES: ReferencePage[] = [
  { path: 'docs/reference/cli.md', generate: () => cliReferenceMarkdown(buildProgram(), PROJECT_ROOT) },
  { path: 'docs/reference/environment.md', generate: environmentReferenceMarkdown },
  { path: 'docs/reference/metrics.md', generate: metricsPage },
  { path: 'docs/reference/partner-events.md', generate: partnerEventsPage },
  { path: 'docs/reference/search-attributes.md', generate: searchAttributesReferenceMarkdown },
];
