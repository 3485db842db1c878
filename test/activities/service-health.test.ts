/** The worker reports a service outage once, names what to check, and reports the recovery once. */
import type { MetricGauge, MetricTags } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { OUTAGE_AFTER_FAILURES, ServiceHealth } from '../../activities/service-health';
import { RampHttpError, RampInvalidParametersError, RampUnauthorisedError } from '../../ramp';

function recorder() {
  const lines: { level: string; message: string; meta?: Record<string, unknown> }[] = [];
  const gauge: { value: number; tags?: MetricTags }[] = [];
  const logger = {
    warn: (message: string, meta?: Record<string, unknown>) =>
      lines.push({ level: 'warn', message, ...(meta ? { meta } : {}) }),
    info: (message: string, meta?: Record<string, unknown>) =>
      lines.push({ level: 'info', message, ...(meta ? { meta } : {}) }),
  };
  const metric = {
    set: (value: number, tags?: MetricTags) => gauge.push({ value, ...(tags ? { tags } : {}) }),
  } as unknown as MetricGauge;
  return { lines, gauge, health: new ServiceHealth(logger, metric) };
}

const unauthorised = () =>
  new RampUnauthorisedError('the service refused our credentials', {
    httpStatus: 422,
    serviceStatus: 'UNAUTHORISED',
    serviceMessage: 'bad signature',
    method: 'GET',
    path: '/customer/detail',
  });

describe('ServiceHealth', () => {
  it('logs one line and sets the gauge once every call fails as UNAUTHORISED, and once more when calls succeed again', () => {
    const { lines, gauge, health } = recorder();
    for (let i = 0; i < OUTAGE_AFTER_FAILURES * 50; i += 1) health.failed(unauthorised());
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 'warn', meta: { cause: 'UNAUTHORISED' } });
    expect(lines[0]!.message).toMatch(/RAMP_API_KEY and RAMP_API_SECRET.*clock/);
    expect(gauge).toEqual([{ value: 1, tags: { cause: 'UNAUTHORISED' } }]);
    expect(health.current).toMatchObject({ cause: 'UNAUTHORISED', failures: OUTAGE_AFTER_FAILURES * 50 });

    health.succeeded();
    health.succeeded();
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatchObject({
      level: 'info',
      meta: { cause: 'UNAUTHORISED', failedCalls: OUTAGE_AFTER_FAILURES * 50 },
    });
    expect(gauge.at(-1)).toEqual({ value: 0, tags: { cause: 'UNAUTHORISED' } });
    expect(health.current).toBeUndefined();
  });

  it('says nothing of scattered failures, or of refusals that concern one request', () => {
    const { lines, gauge, health } = recorder();
    for (let i = 0; i < OUTAGE_AFTER_FAILURES * 3; i += 1) {
      health.failed(new RampHttpError('the service answered 503', { httpStatus: 503, method: 'GET', path: '/x' }));
      if (i % 5 === 0) health.succeeded();
      health.failed(
        new RampInvalidParametersError('the service refused the parameters', {
          httpStatus: 422,
          serviceStatus: 'INVALID_PARAMETERS',
          serviceMessage: 'no',
          method: 'POST',
          path: '/x',
        }),
      );
    }
    expect(lines).toEqual([]);
    expect(gauge).toEqual([]);
  });
});
