/**
 * No Docker engine runs here, so this checks docker-compose.yml and the Dockerfile the way an engine
 * would before starting anything, and against rampflow's own definitions: the file is valid against
 * the Compose Specification's schema, every rampflow service's environment parses with the config
 * schemas, published ports do not clash, each service's command is a real `rampflow` command, and
 * the cluster setup registers the search attributes the workflows set.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv from 'ajv';
import draft07MetaSchema from 'ajv/dist/refs/json-schema-draft-07.json';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { z } from 'zod';
import {
  ALL_ENV_SCHEMAS,
  CodecServerEnvSchema,
  parseEnv,
  PartnerApiEnvSchema,
  PayloadEnvSchema,
  RampEnvSchema,
  TemporalEnvSchema,
  WebhookEnvSchema,
} from '../../config/env';
import { TEMPORAL_SERVER_VERSION } from '../../dev/temporal-server-tools';
import { RAMP_SEARCH_ATTRIBUTES } from '../../observability/search-attributes';
import { PROJECT_ROOT, runRampflow } from '../support/run';
import { interpolate } from './compose-interpolation';

/** What an operator must set before `docker compose up`: the secrets without a default. */
const OPERATOR_ENV = {
  WEBHOOK_TOKEN: 'a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6',
  PARTNER_API_TOKEN: 'f6e5d4c3b2a1f6e5d4c3b2a1f6e5d4c3',
  CODEC_SERVER_TOKEN: 'f6e5d4c3b2a1f6e5d4c3b2a1f6e5d4c3',
  RAMPFLOW_PAYLOAD_KEYS: `k1:${Buffer.alloc(32, 7).toString('base64')}`,
};

/** The config sections each rampflow process cannot start without. */
const REQUIRED_SECTIONS: Record<string, z.ZodObject[]> = {
  worker: [TemporalEnvSchema, RampEnvSchema, PayloadEnvSchema],
  'webhooks serve': [TemporalEnvSchema, WebhookEnvSchema, PayloadEnvSchema],
  'codec-server': [PayloadEnvSchema, CodecServerEnvSchema],
  'webhooks register': [RampEnvSchema, WebhookEnvSchema],
  'partner-api': [TemporalEnvSchema, PartnerApiEnvSchema],
};

const commandOf = (service: Service): string => service.command!.filter((word) => !word.startsWith('-')).join(' ');

const ServiceSchema = z.looseObject({
  image: z.string().optional(),
  build: z.unknown().optional(),
  command: z.array(z.string()).optional(),
  entrypoint: z.array(z.string()).optional(),
  environment: z.record(z.string(), z.string()).optional(),
  ports: z.array(z.string()).optional(),
  volumes: z.array(z.string()).optional(),
  depends_on: z.record(z.string(), z.object({ condition: z.string() })).optional(),
});
type Service = z.infer<typeof ServiceSchema>;

const read = (path: string) => readFileSync(join(PROJECT_ROOT, path), 'utf8');
// Compose resolves YAML merge keys (<<: *anchor); so does the yaml package with merge on.
const raw: unknown = parse(read('docker-compose.yml'), { merge: true });
let services: Record<string, Service>;
let rampflowServices: [string, Service][];

beforeAll(() => {
  const compose = z.object({ services: z.record(z.string(), ServiceSchema) }).parse(interpolate(raw, OPERATOR_ENV));
  services = compose.services;
  rampflowServices = Object.entries(services).filter(([, service]) => service.build === '.');
});

describe('docker-compose.yml', () => {
  it('is valid against the Compose Specification schema, before and after interpolation', () => {
    // strict is Ajv's lint of a schema's own style, which the upstream schema does not follow; validation is unaffected.
    const ajv = new Ajv({ allErrors: true, strict: false });
    // The schema names its meta-schema by the https URL without '#', which Ajv does not know by that name.
    ajv.addMetaSchema({ ...draft07MetaSchema, $id: 'https://json-schema.org/draft-07/schema' });
    const validate = ajv.compile(JSON.parse(read('deploy/compose-spec.schema.json')) as object);
    for (const document of [raw, interpolate(raw, OPERATOR_ENV)]) {
      expect(validate(document), ajv.errorsText(validate.errors)).toBe(true);
    }
  });

  it('has the production-like topology: Temporal on PostgreSQL, its Web UI, worker, receiver, partner API, sandbox', () => {
    expect(services.temporal!.image).toMatch(/^temporalio\/server:\d+\.\d+\.\d+$/);
    expect(services.temporal!.environment).toMatchObject({ POSTGRES_SEEDS: 'postgresql' });
    expect(services.postgresql!.image).toMatch(/^postgres:\d+$/);
    expect(services['temporal-ui']!.image).toMatch(/^temporalio\/ui:\d+\.\d+\.\d+$/);
    expect(
      rampflowServices
        .map(([, service]) =>
          service
            .command!.slice(0, 2)
            .filter((word) => !word.startsWith('-'))
            .join(' '),
        )
        .sort(),
    ).toEqual(['codec-server', 'partner-api', 'sandbox', 'webhooks register', 'webhooks serve', 'worker']);
  });

  it('registers the receiver with the sandbox by name, on a host the sandbox accepts plain http for', () => {
    const register = services['webhooks-register']!.command!;
    const url = new URL(register.find((word) => word.startsWith('--url='))!.slice('--url='.length));
    expect(register).toContain('--allow-http');
    expect(`${url.hostname}:${url.port}`).toBe(`webhooks:${services.webhooks!.environment!.WEBHOOK_PORT}`);
    expect(url.pathname).toBe(`/webhooks/ramp/${OPERATOR_ENV.WEBHOOK_TOKEN}`);
    expect(services.sandbox!.command).toContain(`--http-callback-host=${url.hostname}`);
  });

  it('needs the webhook token, the codec token and the payload keys from the operator: there is no default secret', () => {
    for (const name of Object.keys(OPERATOR_ENV)) {
      const without = Object.fromEntries(Object.entries(OPERATOR_ENV).filter(([key]) => key !== name));
      expect(() => interpolate(raw, without), name).toThrow(new RegExp(`^${name}: set ${name}`));
    }
  });

  it('points the Web UI at the codec server with its token, from the origin the codec server allows', () => {
    const ui = services['temporal-ui']!.environment!;
    const codec = parseEnv(CodecServerEnvSchema, services['codec-server']!.environment);
    expect(ui.TEMPORAL_CODEC_ENDPOINT).toBe(`http://localhost:8234/${OPERATOR_ENV.CODEC_SERVER_TOKEN}`);
    expect(codec.CODEC_SERVER_TOKEN).toBe(OPERATOR_ENV.CODEC_SERVER_TOKEN);
    expect(codec.CODEC_SERVER_CORS_ORIGINS).toEqual(['http://localhost:8080']);
    expect(services['codec-server']!.environment!.RAMPFLOW_PAYLOAD_KEYS).toBe(
      services.worker!.environment!.RAMPFLOW_PAYLOAD_KEYS,
    );
  });

  it('needs the partner API token from the operator: there is no default secret', () => {
    const { PARTNER_API_TOKEN: _left, ...withoutIt } = OPERATOR_ENV;
    expect(() => interpolate(raw, withoutIt)).toThrow(/^PARTNER_API_TOKEN: set PARTNER_API_TOKEN/);
    expect(services['partner-api']!.command).toEqual(['partner-api']);
  });

  it('gives rampflow services only variables rampflow reads, each valid, every section a process needs complete', () => {
    const known = new Set(ALL_ENV_SCHEMAS.flatMap((schema) => Object.keys(schema.shape)));
    for (const [name, service] of rampflowServices) {
      const env = service.environment ?? {};
      expect(
        Object.keys(env).filter((variable) => !known.has(variable)),
        `${name}: unknown variables`,
      ).toEqual([]);
      // A section the service sets any variable of must parse whole (parseEnv throws one line per bad variable).
      for (const schema of ALL_ENV_SCHEMAS) {
        if (Object.keys(schema.shape).some((variable) => variable in env))
          expect(() => parseEnv(schema, env), name).not.toThrow();
      }
      const command = commandOf(service);
      for (const schema of REQUIRED_SECTIONS[command] ?? [])
        expect(() => parseEnv(schema, env), `${name} (${command})`).not.toThrow();
    }
  });

  it('gives every rampflow process the same Temporal namespace and task queue, the namespace the setup creates', () => {
    const worker = parseEnv(TemporalEnvSchema, services.worker!.environment);
    const receiver = parseEnv(TemporalEnvSchema, services.webhooks!.environment);
    expect(receiver).toEqual(worker);
    expect(parseEnv(TemporalEnvSchema, services['partner-api']!.environment)).toEqual(worker);
    expect(services['temporal-setup']!.environment!.TEMPORAL_NAMESPACE).toBe(worker.TEMPORAL_NAMESPACE);
  });

  it('publishes no host port twice', () => {
    const published = Object.entries(services).flatMap(([name, service]) =>
      (service.ports ?? []).map((port) => {
        // Short syntax: [HOST_IP:]HOST_PORT:CONTAINER_PORT; the long syntax is not used here.
        const parts = port.split(':');
        expect(parts.length, `${name}: ${port}`).toBeGreaterThanOrEqual(2);
        return `${parts.length === 3 ? parts[0] : '0.0.0.0'}:${parts.at(-2)!}`;
      }),
    );
    expect(published.length).toBeGreaterThanOrEqual(4);
    expect(new Set(published).size).toBe(published.length);
  });

  it(
    'runs a real rampflow command in every rampflow service, with flags that command takes',
    { timeout: 60_000 },
    async () => {
      const checks = rampflowServices.map(async ([name, service]) => {
        const words = service.command!.filter((word) => !word.startsWith('-'));
        const help = await runRampflow([...words, '--help']);
        expect(help.code, name).toBe(0);
        // An unknown subcommand with --help prints the parent's help: the usage line tells them apart.
        expect(help.stdout.split('\n')[0], name).toBe(`Usage: rampflow ${words.join(' ')} [options]`);
        for (const flag of service.command!.filter((word) => word.startsWith('--')))
          expect(help.stdout, `${name}: ${flag}`).toContain(`${flag.split('=')[0]} `);
      });
      await Promise.all(checks);
    },
  );

  it('sets up the Temporal schema and the cluster with scripts that exist, before rampflow starts', () => {
    for (const name of ['temporal-schema', 'temporal-setup']) {
      const service = services[name]!;
      expect(service.volumes).toContain('./deploy:/deploy:ro');
      const script = service.entrypoint!.at(-1)!;
      expect(script).toMatch(/^\/deploy\//);
      expect(existsSync(join(PROJECT_ROOT, 'deploy', script.slice('/deploy/'.length))), script).toBe(true);
    }
    expect(services.temporal!.depends_on).toEqual({
      'temporal-schema': { condition: 'service_completed_successfully' },
    });
    const talkToTemporal = rampflowServices.filter(([, service]) =>
      REQUIRED_SECTIONS[commandOf(service)]?.includes(TemporalEnvSchema),
    );
    expect(talkToTemporal.map(([name]) => name).sort()).toEqual(['partner-api', 'webhooks', 'worker']);
    for (const [name, service] of talkToTemporal) {
      expect(service.depends_on, name).toMatchObject({
        'temporal-setup': { condition: 'service_completed_successfully' },
      });
    }
  });

  it('registers every search attribute the workflows set, with its type', () => {
    const script = read('deploy/temporal-setup.sh');
    const command =
      /temporal operator search-attribute create([^;]*?)(?:;|\n\s*\n|; do)/.exec(script.replace(/\\\n/g, ' '))?.[1] ??
      '';
    // The CLI pairs each --name with the --type at the same position (one --type registers one name).
    const names = [...command.matchAll(/--name (\w+)/g)].map((match) => match[1]);
    const types = [...command.matchAll(/--type (\w+)/g)].map((match) => match[1]);
    const registered = names.map((name, index) => ({ name, type: types[index] }));
    expect(types).toHaveLength(names.length);
    expect(registered.sort((a, b) => a.name!.localeCompare(b.name!))).toEqual(
      RAMP_SEARCH_ATTRIBUTES.map(({ name, type }) => ({ name, type })).sort((a, b) => a.name.localeCompare(b.name)),
    );
  });
});

describe('one Temporal topology: docker-compose.yml runs what `npm run cluster` runs', () => {
  it('the same server version as the project builds (and the Temporal CLI embeds)', () => {
    expect(services.temporal!.image).toBe(`temporalio/server:${TEMPORAL_SERVER_VERSION}`);
    for (const name of ['temporal-schema', 'temporal-setup'])
      expect(services[name]!.image, name).toMatch(
        new RegExp(`^temporalio/admin-tools:${TEMPORAL_SERVER_VERSION.replace(/\./g, '\\.')}-`),
      );
  });

  it('the same server config and start script, and the same schema and setup scripts', () => {
    const launcher = read('dev/temporal-cluster.ts');
    expect(services.temporal!.entrypoint).toEqual(['/bin/sh', '/deploy/temporal-server/start.sh']);
    expect(services.temporal!.volumes).toContain('./deploy:/deploy:ro');
    expect(read('dev/temporal-server.ts')).toContain("'deploy', 'temporal-server', 'start.sh'");
    expect(read('deploy/temporal-server/start.sh')).toMatch(/--config \. --env rampflow /);
    expect(existsSync(join(PROJECT_ROOT, 'deploy/temporal-server/rampflow.yaml'))).toBe(true);
    for (const script of ['temporal-schema.sh', 'temporal-setup.sh']) expect(launcher, script).toContain(`'${script}'`);
  });

  it('gives the server and the schema job the variables the config and the script read', () => {
    const config = read('deploy/temporal-server/rampflow.yaml') + read('deploy/temporal-schema.sh');
    const variablesRead = new Set(
      [...config.matchAll(/env "(\w+)"|\$\{(\w+)[:}]/g)].map((match) => match[1] ?? match[2]),
    );
    for (const name of ['temporal', 'temporal-schema']) {
      const unknown = Object.keys(services[name]!.environment ?? {}).filter((variable) => !variablesRead.has(variable));
      expect(unknown, `${name}: variables nothing reads`).toEqual([]);
    }
  });
});

describe('Dockerfile', () => {
  const dockerfile = read('Dockerfile');

  it('builds the project on Node 20 with npm ci and `npm run build`, and runs the build: `node dist/cli/main.js <command>`, the worker with its heap limit', () => {
    expect(dockerfile).toMatch(/^FROM node:20[.\w-]* AS build$/m);
    expect(dockerfile).toMatch(/^FROM node:20[.\w-]*$/m);
    // Without --ignore-scripts, npm ci would run `prepare` (the dev server's build) before the sources are copied.
    expect(dockerfile.match(/^RUN npm ci\b.*$/gm)?.every((line) => line.includes('--ignore-scripts'))).toBe(true);
    expect(dockerfile).toMatch(/^RUN npm run build$/m);
    expect(dockerfile).toMatch(/^COPY --from=build \/app\/dist \.\/dist$/m);
    expect(dockerfile).toMatch(/^ENTRYPOINT \["\/app\/bin\/docker-entrypoint\.sh"\]$/m);
    const entrypoint = read('bin/docker-entrypoint.sh');
    expect(entrypoint).toMatch(/^exec node dist\/cli\/main\.js "\$@"$/m);
    expect(entrypoint).toMatch(/^ {2}exec node "\$heap_flag" dist\/cli\/main\.js "\$@"$/m);
    expect(dockerfile).toMatch(/^USER node$/m);
    expect(rampflowServices.length).toBe(6);
  });

  it("never copies the host's node_modules or build into the image", () => {
    expect(read('.dockerignore').split('\n')).toContain('node_modules/');
    expect(read('.dockerignore').split('\n')).toContain('dist/');
  });
});

describe('docker-compose.yml: metrics and alerts', () => {
  it("runs Prometheus on the repository's config and rules, scraping the worker's and the receiver's ports", () => {
    const prometheus = services.prometheus!;
    expect(prometheus.image).toMatch(/^prom\/prometheus:v\d+\.\d+\.\d+$/);
    expect(prometheus.volumes).toContain('./deploy/observability/prometheus:/etc/prometheus:ro');
    const config = parse(read('deploy/observability/prometheus/prometheus.yml')) as {
      rule_files: string[];
      scrape_configs: { job_name: string; static_configs: { targets: string[] }[] }[];
    };
    for (const file of config.rule_files)
      expect(existsSync(join(PROJECT_ROOT, 'deploy/observability/prometheus', file)), file).toBe(true);
    const targets = Object.fromEntries(
      config.scrape_configs.map((job) => [job.job_name, job.static_configs.flatMap((c) => c.targets)]),
    );
    expect(targets['rampflow-worker']).toEqual([`worker:${services.worker!.environment!.WORKER_METRICS_PORT}`]);
    expect(targets['rampflow-webhooks']).toEqual([`webhooks:${services.webhooks!.environment!.WEBHOOK_PORT}`]);
  });

  it('runs Grafana with the provisioned data source and dashboard, mounted where the provider looks', () => {
    const grafana = services.grafana!;
    expect(grafana.image).toMatch(/^grafana\/grafana:\d+\.\d+\.\d+$/);
    const mounts = new Map(
      (grafana.volumes ?? [])
        .map((volume) => volume.split(':') as [string, string, string?])
        .map(([from, to]) => [to, from]),
    );
    expect(
      existsSync(join(PROJECT_ROOT, mounts.get('/etc/grafana/provisioning')!, 'datasources', 'prometheus.yml')),
    ).toBe(true);
    const provider = parse(read('deploy/observability/grafana/provisioning/dashboards/rampflow.yml')) as {
      providers: { options: { path: string } }[];
    };
    const dashboards = mounts.get(provider.providers[0]!.options.path)!;
    expect(existsSync(join(PROJECT_ROOT, dashboards, 'rampflow.json'))).toBe(true);
    const datasource = parse(read('deploy/observability/grafana/provisioning/datasources/prometheus.yml')) as {
      datasources: { url: string }[];
    };
    expect(datasource.datasources[0]!.url).toBe('http://prometheus:9090');
  });
});
