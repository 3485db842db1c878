/**
 * Sandbox variants (sandbox/variants.ts): each switches one point the interface leaves open away from
 * what rampflow assumes, through the programmatic options and through `--variant name=value`.
 */
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../cli/main';
import { variantOptions } from '../../sandbox';
import { startTestSandbox } from '../support/sandbox';

describe('sandbox variants', () => {
  it('query-parameters=snake_case: the service reads page_size and external_id, not pageSize and externalId', async () => {
    const s = await startTestSandbox(variantOptions(['query-parameters=snake_case']));
    try {
      await s.ramp.http.send({
        method: 'POST',
        path: '/customer/create',
        body: { bytes: Buffer.from('{"externalId":"v-1"}'), contentType: 'application/json', hashed: true },
      });
      const camel = await s.ramp.http.send({ method: 'GET', path: '/customer/list', query: 'pageNum=1&pageSize=1' });
      expect((camel.body.data as { pageSize: number }).pageSize).toBe(10);
      const snake = await s.ramp.http.send({ method: 'GET', path: '/customer/list', query: 'page_num=1&page_size=1' });
      expect((snake.body.data as { pageSize: number }).pageSize).toBe(1);
      await expect(
        s.ramp.http.send({ method: 'GET', path: '/customer/detail', query: 'externalId=v-1' }),
      ).rejects.toThrow(/refused the parameters/);
      const found = await s.ramp.http.send({ method: 'GET', path: '/customer/detail', query: 'external_id=v-1' });
      expect((found.body.data as { externalId: string }).externalId).toBe('v-1');
    } finally {
      await s.close();
    }
  });

  it('max-page-size=20: a larger page is refused', async () => {
    const s = await startTestSandbox({ variants: { maxPageSize: 20 } });
    try {
      await expect(
        s.ramp.http.send({ method: 'GET', path: '/customer/list', query: 'pageNum=1&pageSize=21' }),
      ).rejects.toThrow(/refused the parameters/);
      await s.ramp.http.send({ method: 'GET', path: '/customer/list', query: 'pageNum=1&pageSize=20' });
    } finally {
      await s.close();
    }
  });

  it('legacy-create-va-path: create-va moves, the default path is gone', async () => {
    const s = await startTestSandbox(variantOptions(['legacy-create-va-path=/old/create-va']));
    try {
      const body = { bytes: Buffer.from('{}'), contentType: 'application/json', hashed: true };
      await expect(
        s.ramp.http.send({ method: 'POST', path: '/create-va', body, generation: 'legacy' }),
      ).rejects.toMatchObject({ httpStatus: 404 });
      await expect(
        s.ramp.http.send({ method: 'POST', path: '/old/create-va', body, generation: 'legacy' }),
      ).rejects.not.toMatchObject({ httpStatus: 404 });
    } finally {
      await s.close();
    }
  });

  it('list-order and accepted-skew stand for their options; later pairs win', () => {
    expect(
      variantOptions([
        'list-order=oldest-first',
        'accepted-skew=10',
        'max-page-size=50',
        'query-parameters=snake_case',
      ]),
    ).toEqual({
      listOrder: 'oldest-first',
      acceptedSkewSeconds: 10,
      variants: { maxPageSize: 50, queryParameters: 'snake_case' },
    });
  });

  it.each([
    'page-size=50',
    'max-page-size=101',
    'list-order=sideways',
    'query-parameters=kebab',
    'accepted-skew',
    'legacy-create-va-path=create-va',
  ])('refuses %s', (pair) => {
    expect(() => variantOptions([pair])).toThrow(/variant|--variant/);
  });

  it('rampflow sandbox --variant refuses a bad pair before starting', async () => {
    const program = buildProgram();
    program.configureOutput({ writeErr: () => {}, writeOut: () => {} });
    for (const command of program.commands)
      command.exitOverride().configureOutput({ writeErr: () => {}, writeOut: () => {} });
    await expect(
      program.parseAsync(['node', 'rampflow', 'sandbox', '--partner', 'k:s', '--variant', 'max-page-size=0']),
    ).rejects.toThrow(/max-page-size expects a whole number from 1 to 100/);
  });
});
