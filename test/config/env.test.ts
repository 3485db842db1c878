import { describe, expect, it } from 'vitest';
import {
  ConfigError,
  DeploymentEnvSchema,
  parseEnv,
  PartnerEventsEnvSchema,
  RampEnvSchema,
  TemporalEnvSchema,
  WebhookEnvSchema,
} from '../../config/env';

describe('parseEnv', () => {
  it('fills the documented defaults', () => {
    expect(parseEnv(TemporalEnvSchema, {})).toEqual({
      TEMPORAL_ADDRESS: '127.0.0.1:7233',
      TEMPORAL_NAMESPACE: 'default',
      TEMPORAL_TASK_QUEUE: 'rampflow',
    });
  });

  it('reports one line per bad variable and never echoes a secret', () => {
    const secret = 'super-secret-value-that-must-not-leak';
    let error: unknown;
    try {
      parseEnv(RampEnvSchema, { RAMP_BASE_URL: 'not a url', RAMP_API_SECRET: secret });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems;
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatch(/^RAMP_BASE_URL: /);
    expect(problems[1]).toBe('RAMP_API_KEY: is required');
    expect((error as ConfigError).message).not.toContain(secret);
  });

  it('treats an empty variable as unset and splits the IP allow-list', () => {
    const parsed = parseEnv(WebhookEnvSchema, {
      WEBHOOK_PORT: '',
      WEBHOOK_TOKEN: 'a-token-of-sixteen-chars',
      WEBHOOK_ALLOWED_IPS: ' 127.0.0.1, ::1 ,',
    });
    expect(parsed.WEBHOOK_PORT).toBe(8788);
    expect(parsed.WEBHOOK_ALLOWED_IPS).toEqual(['127.0.0.1', '::1']);
  });

  it('rejects an address without a port', () => {
    expect(() => parseEnv(TemporalEnvSchema, { TEMPORAL_ADDRESS: 'localhost' })).toThrow(
      /TEMPORAL_ADDRESS: expected host:port/,
    );
  });

  it('versions workers by default, in the rampflow deployment, and names a bad build ID or switch', () => {
    expect(parseEnv(DeploymentEnvSchema, {})).toEqual({
      TEMPORAL_DEPLOYMENT_NAME: 'rampflow',
      TEMPORAL_WORKER_VERSIONING: true,
    });
    expect(
      parseEnv(DeploymentEnvSchema, { TEMPORAL_WORKER_VERSIONING: 'false', TEMPORAL_WORKER_BUILD_ID: 'v1.2.3' }),
    ).toMatchObject({ TEMPORAL_WORKER_VERSIONING: false, TEMPORAL_WORKER_BUILD_ID: 'v1.2.3' });
    let error: unknown;
    try {
      parseEnv(DeploymentEnvSchema, { TEMPORAL_WORKER_BUILD_ID: "x' OR 1=1", TEMPORAL_WORKER_VERSIONING: 'maybe' });
    } catch (caught) {
      error = caught;
    }
    expect((error as ConfigError).problems).toEqual([
      expect.stringMatching(/^TEMPORAL_WORKER_BUILD_ID: letters, digits/),
      expect.stringMatching(/^TEMPORAL_WORKER_VERSIONING: /),
    ]);
  });

  it('keeps partner events in the file store by default, in PostgreSQL given a URL, and names a bad URL without echoing it', () => {
    expect(parseEnv(PartnerEventsEnvSchema, {})).toEqual({
      PARTNER_EVENTS_DIR: '.data/partner-events',
      PARTNER_EVENTS_DATABASE_POOL_SIZE: 4,
    });
    const url = 'postgresql://rampflow:pw@db.internal:5432/rampflow';
    expect(parseEnv(PartnerEventsEnvSchema, { PARTNER_EVENTS_DATABASE_URL: url })).toMatchObject({
      PARTNER_EVENTS_DATABASE_URL: url,
    });
    const password = 'a-password-that-must-not-leak';
    let error: unknown;
    try {
      parseEnv(PartnerEventsEnvSchema, {
        PARTNER_EVENTS_DATABASE_URL: `mysql://rampflow:${password}@db:3306/x`,
        PARTNER_EVENTS_DATABASE_POOL_SIZE: '0',
      });
    } catch (caught) {
      error = caught;
    }
    expect((error as ConfigError).problems).toEqual([
      'PARTNER_EVENTS_DATABASE_URL: expected postgres://user:password@host:5432/database',
      expect.stringMatching(/^PARTNER_EVENTS_DATABASE_POOL_SIZE: /),
    ]);
    expect((error as ConfigError).message).not.toContain(password);
  });
});
