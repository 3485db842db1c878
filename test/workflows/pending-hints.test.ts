/**
 * A first-come box of pending hints (workflows/common/trust.ts) holds the same few ids whatever is
 * delivered, so a deposit's carried hints (workflows/deposit/carry.ts) stay small.
 */
import { describe, expect, it } from 'vitest';
import { HINT_FIELD_MAX_LENGTH, PendingHints, REFUSED_HINTS_KEPT } from '../../workflows/common/trust';

const firstCome = () => new PendingHints(4, true);

describe('a first-come box of pending hints', () => {
  it('keeps the first ids and reads the oldest first; a burst after them is turned away', () => {
    const box = firstCome();
    box.note({ id: 'genuine', status: 'CREATED' });
    for (let n = 0; n < 10; n++) box.note({ id: `forged-${n}`, status: 'CREATED' });
    expect(box.ids()).toEqual(['genuine', 'forged-0', 'forged-1', 'forged-2']);
    expect(box.next(() => true)).toBe('genuine');
    // A later claim about a held id keeps its place with the latest status.
    box.note({ id: 'genuine', status: 'SETTLED' });
    expect(box.claimFor('genuine')).toBe('SETTLED');
    expect(box.next(() => true)).toBe('genuine');
  });

  it('does not take again an id a read refused, and remembers only the last few refusals', () => {
    const box = firstCome();
    box.note({ id: 'made-up', status: 'CREATED' });
    box.refuse('made-up');
    box.note({ id: 'made-up', status: 'CREATED' });
    expect(box.size).toBe(0);
    for (let n = 0; n < 3 * REFUSED_HINTS_KEPT; n++) box.refuse(`forged-${n}`);
    expect(box.carry().refused).toHaveLength(REFUSED_HINTS_KEPT);
  });

  it('turns away ids and statuses longer than the service uses, so its carry is small', () => {
    const box = firstCome();
    box.note({ id: 'x'.repeat(HINT_FIELD_MAX_LENGTH + 1), status: 'CREATED' });
    box.note({ id: 'ok', status: 'S'.repeat(HINT_FIELD_MAX_LENGTH + 1) });
    expect(box.size).toBe(0);
    const carried = firstCome();
    for (let n = 0; n < 100; n++) carried.note({ id: `forged-${n}`, status: 'CREATED' });
    expect(carried.carry().pending).toHaveLength(4);
    expect(new PendingHints(4, true, carried.carry()).ids()).toEqual(['forged-0', 'forged-1', 'forged-2', 'forged-3']);
  });

  it('latest wins where the owner did not choose first come (journeys)', () => {
    const box = new PendingHints(2);
    for (const id of ['a', 'b', 'c']) box.note({ id, status: 'CREATED' });
    expect(box.ids()).toEqual(['b', 'c']);
    expect(box.next(() => true)).toBe('c');
  });
});
