/**
 * The metrics as operators get them: a real Prometheus (Debian's) scrapes a real worker process
 * (`rampflow worker`, WORKER_METRICS_PORT) and a real receiver's GET /metrics every second, with
 * rampflow's rules loaded, while a journey runs to ACTIVE on webhooks and a deposit completes; the business metrics are then
 * read back through Prometheus's HTTP API (/api/v1/query), with their labels, and never an id.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../dev/ports';
import { SDK_METRICS } from '../../observability/metric-catalogue';
import { registerWebhooks } from '../../webhooks/registration';
import { startActiveJourney, startJourneyHarness, type JourneyHarness } from '../support/journey-harness';
import { until } from '../support/until';
import { startWorkerProcess, testWorkerEnv, type WorkerProcess } from '../support/worker-process';
import { startReceiver, type TestReceiver } from '../webhooks/support/receiver';
import { MISSING_PROMETHEUS, PROMETHEUS, RULES_FILE, startPrometheus, type RunningPrometheus } from './support/prometheus-tools';

const JOURNEY_STAGES = ['CREATING_CUSTOMER', 'AWAITING_KYC', 'SETTING_UP_RAMPS', 'AWAITING_ACCOUNTS', 'ACTIVE'];

describe.skipIf(!PROMETHEUS)(`rampflow's metrics through a real Prometheus${PROMETHEUS ? '' : ` (skipped: ${MISSING_PROMETHEUS})`}`, () => {
  let h: JourneyHarness;
  let worker: WorkerProcess;
  let receiver: TestReceiver;
  let prometheus: RunningPrometheus;
  let journey: Awaited<ReturnType<typeof startActiveJourney>>;
  let depositId = '';

  beforeAll(async () => {
    h = await startJourneyHarness();
    // The harness's in-process worker makes way for the real process.
    await h.stopWorker();
    const metricsPort = await freePort();
    worker = startWorkerProcess(testWorkerEnv({ taskQueue: h.taskQueue, sandboxUrl: h.sandbox.url, metricsPort, logLevel: 'error' }));
    await until('the worker to serve its metrics', async () => ((await fetch(`http://127.0.0.1:${metricsPort}/metrics`).catch(() => undefined))?.ok ? true : undefined), 90_000);
    receiver = await startReceiver({ client: h.client, taskQueue: h.taskQueue });
    await registerWebhooks(h.ramp, { callbackUrl: receiver.webhookUrl, rampBaseUrl: h.sandbox.url });
    const receiverPort = new URL(receiver.url).port;
    prometheus = await startPrometheus({
      jobs: { 'rampflow-worker': [`127.0.0.1:${metricsPort}`], 'rampflow-webhooks': [`127.0.0.1:${receiverPort}`] },
      ruleFiles: [RULES_FILE],
      scrapeInterval: '1s',
    });
    journey = await startActiveJourney(h);
  });
  afterAll(async () => {
    await prometheus?.close();
    await receiver?.close();
    worker?.child.kill('SIGTERM');
    await worker?.exited;
    await h?.close();
  });

  /** Queries until `accept` holds for the result. */
  const eventually = <T>(what: string, expr: string, accept: (result: Awaited<ReturnType<RunningPrometheus['query']>>) => T | undefined) =>
    until(what, async () => accept(await prometheus.query(expr)), 30_000);

  it('scrapes both targets', async () => {
    const up = await eventually('both targets up', 'up', (result) => (result.length === 2 && result.every((series) => series.value[1] === '1') ? result : undefined));
    expect(up.map((series) => series.metric.job).sort()).toEqual(['rampflow-webhooks', 'rampflow-worker']);
  });

  it('has the journey\'s stage transitions, by workflow type and stage, on the test\'s task queue (the SDK\'s `taskQueue` label)', async () => {
    const expr = `sum by (workflow_type, stage) (rampflow_stage_transitions_total{taskQueue="${h.taskQueue}", workflow_type="customerJourney"})`;
    const result = await eventually('every stage of the journey', expr, (series) => (JOURNEY_STAGES.every((stage) => series.some((one) => one.metric.stage === stage)) ? series : undefined));
    for (const stage of JOURNEY_STAGES) expect(result.find((one) => one.metric.stage === stage)!.value[1], stage).toBe('1');
    // Time in stage: observed for each stage the journey left.
    const left = await eventually('time in stage', `sum by (stage) (rampflow_stage_duration_seconds_count{taskQueue="${h.taskQueue}", workflow_type="customerJourney"})`, (series) =>
      series.length >= 4 ? series : undefined,
    );
    expect(left.map((one) => one.metric.stage).sort()).toEqual(['AWAITING_ACCOUNTS', 'AWAITING_KYC', 'CREATING_CUSTOMER', 'SETTING_UP_RAMPS']);
  });

  it('counts a completed deposit by kind and currency, with its amount, and its stages', async () => {
    // An offramp deposit of USDT, moved along at the service; the receiver and the deposit's polls carry it.
    const sender = { address: '0x0000000000000000000000000000000000000001', network: 'ETH' };
    const deposit = await h.control.simulateCryptoDeposit({ depositAddressId: journey.depositAddressId, amount: '50.25', currency: 'USDT', sender });
    await h.sandbox.clock.advance(60);
    await h.control.confirmDeposit(deposit.id);
    await h.sandbox.clock.advance(60);
    const trade = await h.waitForDeposit(deposit.id, (state) => state.tradeId !== undefined);
    await h.control.settleTrade(trade.tradeId!);
    await h.sandbox.clock.advance(60);
    const traded = await h.waitForDeposit(deposit.id, (state) => state.paymentId !== undefined);
    await h.control.settlePayment(traded.paymentId!);
    await h.sandbox.clock.advance(60);
    await h.waitForDeposit(deposit.id, (state) => state.stage === 'COMPLETED');
    depositId = deposit.id;

    const completed = await eventually('the completed deposit', 'sum by (workflow_type, kind, currency) (rampflow_deposits_completed_total)', (series) => (series.length === 1 ? series : undefined));
    expect(completed[0]!.metric).toEqual({ workflow_type: 'depositLifecycle', kind: 'OFFRAMP', currency: 'USDT' });
    expect(completed[0]!.value[1]).toBe('1');
    const [amount] = await prometheus.query('sum by (currency) (rampflow_deposit_amount_sum{outcome="completed"})');
    expect(amount).toMatchObject({ metric: { currency: 'USDT' }, value: [expect.any(Number), '50.25'] });
    const stages = await prometheus.query('sum by (stage) (rampflow_stage_transitions_total{workflow_type="depositLifecycle"})');
    expect(stages.map((one) => one.metric.stage)).toEqual(expect.arrayContaining(['RECEIVED', 'CONFIRMED', 'COMPLETED']));
  });

  it('labels no series with the customer\'s id or externalId', async () => {
    // This Prometheus scrapes only this test's worker and receiver.
    const series = await prometheus.query('{__name__=~"rampflow_.+"}');
    const ids = [journey.state.externalId, journey.state.customer.id!, journey.virtualAccountId, journey.depositAddressId, ...(depositId ? [depositId] : [])];
    expect(series.length).toBeGreaterThan(0);
    for (const one of series) for (const value of Object.values(one.metric)) for (const id of ids) expect(value).not.toContain(id);
  });

  it('counts the service calls by endpoint template and outcome', async () => {
    const result = await eventually('the customer create call', 'sum by (method, endpoint, outcome) (rampflow_service_requests_total{job="rampflow-worker"})', (series) =>
      series.some((one) => one.metric.endpoint === '/customer/create' && one.metric.outcome === '2xx') ? series : undefined,
    );
    for (const one of result) expect(one.metric.endpoint).toMatch(/^\/[a-z-]+(\/[a-z-]+)*$/);
    expect(await prometheus.query('count(rampflow_service_request_duration_seconds_bucket{endpoint="/customer/create"})')).toHaveLength(1);
  });

  it('has the receiver\'s accepted deliveries, the worker\'s memory, and the rules\' recorded SLAs', async () => {
    await eventually('accepted deliveries', 'sum(rampflow_webhook_requests_total{job="rampflow-webhooks", outcome="accepted"}) > 0', (series) => (series.length === 1 ? series : undefined));
    const memory = await prometheus.query('process_resident_memory_bytes{job="rampflow-worker"}');
    expect(Number(memory[0]?.value[1])).toBeGreaterThan(10_000_000);
    await eventually('the SLA recording rules', 'rampflow:stage_sla_seconds{stage="AWAITING_KYC"}', (series) => (series.length === 1 ? series : undefined));
  });

  it('serves the SDK\'s latency histograms in seconds, under the names the dashboard and rules use', async () => {
    const body = (await (await fetch(`${prometheus.url}/api/v1/label/__name__/values`)).json()) as { data: string[] };
    const names = new Set(body.data);
    for (const name of ['temporal_workflow_task_schedule_to_start_latency', 'temporal_workflow_task_execution_latency', 'temporal_activity_execution_latency', 'temporal_sticky_cache_size', 'temporal_worker_task_slots_available']) {
      const series = SDK_METRICS[name as keyof typeof SDK_METRICS] === 'histogram' ? `${name}_bucket` : name;
      expect(names.has(series), series).toBe(true);
    }
    // Seconds: a journey's workflow tasks each take well under a second, so the p99 is below 1 (in milliseconds it would be above).
    const [p99] = await prometheus.query(`histogram_quantile(0.99, sum by (le) (temporal_workflow_task_execution_latency_bucket{task_queue="${h.taskQueue}"}))`);
    expect(Number(p99!.value[1])).toBeLessThan(1);
  });
});
