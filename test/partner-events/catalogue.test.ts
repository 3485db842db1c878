/** The event catalogue is generated, and what the reference page and the contract show is what is sent. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildContract } from '../../client/contract';
import { PARTNER_EVENT_TYPES, PartnerEventSchema } from '../../partner-events/catalogue';
import { CATALOGUE_BEGIN, CATALOGUE_END, partnerEventCatalogueMarkdown } from '../../partner-events/catalogue-markdown';
import { PROJECT_ROOT } from '../support/run';

describe('the partner event catalogue', () => {
  it('is in docs/reference/partner-events.md as generated (`rampflow partner-events catalogue` prints it; `npm run docs:generate` writes it)', () => {
    const page = readFileSync(join(PROJECT_ROOT, 'docs', 'reference', 'partner-events.md'), 'utf8');
    const shown = page.slice(page.indexOf(CATALOGUE_BEGIN), page.indexOf(CATALOGUE_END) + CATALOGUE_END.length);
    expect(shown).toBe(partnerEventCatalogueMarkdown());
  });

  it('is in the contract, one JSON Schema per type', () => {
    expect(Object.keys(buildContract().partnerEvents.types)).toEqual(PARTNER_EVENT_TYPES);
  });

  it('refuses an event whose data does not match its type, or whose id is not an event id', () => {
    const envelope = {
      id: 'evt_0123456789abcdef0123',
      timestamp: '2026-11-24T00:00:00.000Z',
      sequence: 1,
      externalId: 'user-1',
    };
    expect(
      PartnerEventSchema.safeParse({
        ...envelope,
        type: 'journey.kyc_required',
        data: { kycLink: 'https://kyc.example/x' },
      }).success,
    ).toBe(true);
    expect(PartnerEventSchema.safeParse({ ...envelope, type: 'journey.kyc_required', data: {} }).success).toBe(false);
    expect(
      PartnerEventSchema.safeParse({ ...envelope, id: 'evt_short', type: 'journey.approved', data: {} }).success,
    ).toBe(false);
    expect(PartnerEventSchema.safeParse({ ...envelope, type: 'journey.unknown', data: {} }).success).toBe(false);
  });
});
