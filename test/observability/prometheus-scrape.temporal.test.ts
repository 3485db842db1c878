/**
 * The metrics as operators get them: a real Prometheus (Debian's) scrapes a real worker process
 * (`rampflow worker`, WORKER_METRICS_PORT) and a real receiver's GET /metrics every second, with
 * rampflow's rules loaded, while a journey runs to ACTIVE on webhooks and a deposit completes; the business metrics are then
 * read back through Prometheus's HTTP API (/api/v1/query), with their labels, and never an id.
 * After the journey, the deposit and a reconciliation, every query of the Grafana dashboard returns
 * data, but for the few named in NO_DATA_IN_A_RUN: a screenshot-free check of the dashboard.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../dev/ports';
import { endpointsVariable, localEndpointConfig } from '../../partner-events/local-endpoint';
import { SDK_METRICS } from '../../observability/metric-catalogue';
import { SCANNED_STAGES } from '../../observability/stage-age-scan';
import { registerWebhooks } from '../../webhooks/registration';
import { startActiveJourney, startJourneyHarness, type JourneyHarness } from '../support/journey-harness';
import { startTestPartnerEndpoint, type TestPartnerEndpoint } from '../support/partner-endpoint';
import { until } from '../support/until';
import { startWorkerProcess, testWorkerEnv, type WorkerProcess } from '../support/worker-process';
import { startReceiver, type TestReceiver } from '../webhooks/support/receiver';
import { dashboardExpressions, withGrafanaVariables } from './support/dashboard';
import {
  metricNamesIn,
  MISSING_PROMETHEUS,
  PROMETHEUS,
  RULES_FILE,
  startPrometheus,
  type RunningPrometheus,
} from './support/prometheus-tools';

const SCANNED_STAGE_COUNT = SCANNED_STAGES.reduce((sum, kind) => sum + kind.stages.length, 0);
const JOURNEY_STAGES = ['CREATING_CUSTOMER', 'AWAITING_KYC', 'SETTING_UP_RAMPS', 'AWAITING_ACCOUNTS', 'ACTIVE'];

/**
 * Dashboard queries that honestly have no data after this run, each by its panel and the metric it
 * reads, with the reason. Any other query without data fails the dashboard case, so a new panel
 * must either show data here or be named here; an entry matching no query fails too.
 */
const NO_DATA_IN_A_RUN: { panel: string; metric: string; reason: string }[] = [
  {
    panel: 'Parked by reason',
    metric: 'rampflow_parked_total',
    reason:
      'nothing parks in a run that goes well: parking a journey or deposit takes its deadline or a refusal (their own tests count it)',
  },
  {
    panel: 'Parked by reason',
    metric: 'rampflow_resumed_total',
    reason: "only an operator's decision on a parked workflow resumes it",
  },
  {
    panel: 'Parked minus resumed, last hour',
    metric: 'rampflow:parked_net:increase1h',
    reason: 'recorded from rampflow_parked_total, which has no series (above)',
  },
  {
    panel: 'Deposits completed and reversed',
    metric: 'rampflow_deposits_reversed_total',
    reason: "the run's deposit completes; a reversal is the service refusing it",
  },
  {
    panel: 'Money reversed (over the time range)',
    metric: 'rampflow_deposit_amount_sum',
    reason: 'observed with outcome="reversed" only when a deposit is reversed',
  },
  {
    panel: 'Activity failures',
    metric: 'temporal_activity_execution_failed',
    reason:
      'the run\'s only failing activity is the failing endpoint\'s delivery, which fails as benign (counted in rampflow_partner_event_deliveries_total{outcome="failed"}, one log line an attempt); a failing service call counts here',
  },
  {
    panel: 'Payouts',
    metric: 'rampflow_payouts_total',
    reason: 'the run has no payout (a bank account and a settled offramp of their own)',
  },
  {
    panel: 'Money paid out (settled payouts, over the time range)',
    metric: 'rampflow_payout_amount_sum',
    reason: 'the run has no payout (above); test/workflows/payout.temporal.test.ts counts a settled one',
  },
  {
    panel: 'Dismissed deliveries and ignored hints',
    metric: 'rampflow_deliveries_dismissed_total',
    reason: 'only a forged delivery (a record the service does not have) is dismissed',
  },
  {
    panel: 'Dismissed deliveries and ignored hints',
    metric: 'rampflow_hints_ignored_total',
    reason: "only a delivery claiming what the service's record does not back is ignored",
  },
  {
    panel: 'Workflow task failures',
    metric: 'temporal_workflow_task_execution_failed',
    reason: 'the SDK counts a workflow task failure only once one fails: a bug or a nondeterminism',
  },
];

describe.skipIf(!PROMETHEUS)(
  `rampflow's metrics through a real Prometheus${PROMETHEUS ? '' : ` (skipped: ${MISSING_PROMETHEUS})`}`,
  () => {
    let h: JourneyHarness;
    let worker: WorkerProcess;
    let receiver: TestReceiver;
    let prometheus: RunningPrometheus;
    let journey: Awaited<ReturnType<typeof startActiveJourney>>;
    let depositId = '';
    /** The partner's endpoints: one accepts (204), one fails (503) until its deliveries park. */
    let accepting: TestPartnerEndpoint;
    let failing: TestPartnerEndpoint;

    beforeAll(async () => {
      h = await startJourneyHarness();
      // The harness's in-process worker makes way for the real process.
      await h.stopWorker();
      const metricsPort = await freePort();
      accepting = await startTestPartnerEndpoint();
      failing = await startTestPartnerEndpoint();
      failing.answer({ status: 503 });
      worker = startWorkerProcess({
        ...testWorkerEnv({ taskQueue: h.taskQueue, sandboxUrl: h.sandbox.url, metricsPort, logLevel: 'error' }),
        PARTNER_EVENT_ENDPOINTS: endpointsVariable([
          localEndpointConfig(accepting.url, accepting.secret, 'partner'),
          localEndpointConfig(failing.url, failing.secret, 'failing-partner'),
        ]),
        PARTNER_EVENTS_ALLOW_PRIVATE_ENDPOINTS: 'true',
        // Seconds, so the failing endpoint's deliveries park during the run.
        PARTNER_EVENT_RETRY_SECONDS: '2',
        // The memory panel's limit line; 8 GiB, far above what the worker uses.
        WORKER_MEMORY_MB: '8192',
      });
      await until(
        'the worker to serve its metrics',
        async () =>
          (await fetch(`http://127.0.0.1:${metricsPort}/metrics`).catch(() => undefined))?.ok ? true : undefined,
        90_000,
      );
      // Scans for the longest waiter per stage every 2 s (production: STAGE_AGE_SCAN_SECONDS, 60).
      receiver = await startReceiver({ client: h.client, taskQueue: h.taskQueue, stageAgeScanSeconds: 2 });
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
      await accepting?.close();
      await failing?.close();
    });

    /** Queries until `accept` holds for the result. */
    const eventually = <T>(
      what: string,
      expr: string,
      accept: (result: Awaited<ReturnType<RunningPrometheus['query']>>) => T | undefined,
    ) => until(what, async () => accept(await prometheus.query(expr)), 30_000);

    it('scrapes both targets', async () => {
      const up = await eventually('both targets up', 'up', (result) =>
        result.length === 2 && result.every((series) => series.value[1] === '1') ? result : undefined,
      );
      expect(up.map((series) => series.metric.job).sort()).toEqual(['rampflow-webhooks', 'rampflow-worker']);
    });

    it("has the journey's stage transitions, by workflow type and stage, on the test's task queue (the SDK's `taskQueue` label)", async () => {
      const expr = `sum by (workflow_type, stage) (rampflow_stage_transitions_total{taskQueue="${h.taskQueue}", workflow_type="customerJourney"})`;
      const result = await eventually('every stage of the journey', expr, (series) =>
        JOURNEY_STAGES.every((stage) => series.some((one) => one.metric.stage === stage)) ? series : undefined,
      );
      for (const stage of JOURNEY_STAGES)
        expect(result.find((one) => one.metric.stage === stage)!.value[1], stage).toBe('1');
      // Time in stage: observed for each stage the journey left.
      const left = await eventually(
        'time in stage',
        `sum by (stage) (rampflow_stage_duration_seconds_count{taskQueue="${h.taskQueue}", workflow_type="customerJourney"})`,
        (series) => (series.length >= 4 ? series : undefined),
      );
      expect(left.map((one) => one.metric.stage).sort()).toEqual([
        'AWAITING_ACCOUNTS',
        'AWAITING_KYC',
        'CREATING_CUSTOMER',
        'SETTING_UP_RAMPS',
      ]);
    });

    it('counts a completed deposit by kind and currency, with its amount, and its stages', async () => {
      // An offramp deposit of USDT, moved along at the service; the receiver and the deposit's polls carry it.
      const sender = { address: '0x0000000000000000000000000000000000000001', network: 'ETH' };
      const deposit = await h.control.simulateCryptoDeposit({
        depositAddressId: journey.depositAddressId,
        amount: '50.25',
        currency: 'USDT',
        sender,
      });
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

      const completed = await eventually(
        'the completed deposit',
        'sum by (workflow_type, kind, currency) (rampflow_deposits_completed_total)',
        (series) => (series.length === 1 ? series : undefined),
      );
      expect(completed[0]!.metric).toEqual({ workflow_type: 'depositLifecycle', kind: 'OFFRAMP', currency: 'USDT' });
      expect(completed[0]!.value[1]).toBe('1');
      const [amount] = await prometheus.query('sum by (currency) (rampflow_deposit_amount_sum{outcome="completed"})');
      expect(amount).toMatchObject({ metric: { currency: 'USDT' }, value: [expect.any(Number), '50.25'] });
      const stages = await prometheus.query(
        'sum by (stage) (rampflow_stage_transitions_total{workflow_type="depositLifecycle"})',
      );
      expect(stages.map((one) => one.metric.stage)).toEqual(
        expect.arrayContaining(['RECEIVED', 'CONFIRMED', 'COMPLETED']),
      );
    });

    it("labels no series with the customer's id or externalId", async () => {
      // This Prometheus scrapes only this test's worker and receiver.
      const series = await prometheus.query('{__name__=~"rampflow_.+"}');
      const ids = [
        journey.state.externalId,
        journey.state.customer.id!,
        journey.virtualAccountId,
        journey.depositAddressId,
        ...(depositId ? [depositId] : []),
      ];
      expect(series.length).toBeGreaterThan(0);
      for (const one of series)
        for (const value of Object.values(one.metric)) for (const id of ids) expect(value).not.toContain(id);
    });

    it('counts the service calls by endpoint template and outcome', async () => {
      const result = await eventually(
        'the customer create call',
        'sum by (method, endpoint, outcome) (rampflow_service_requests_total{job="rampflow-worker"})',
        (series) =>
          series.some((one) => one.metric.endpoint === '/customer/create' && one.metric.outcome === '2xx')
            ? series
            : undefined,
      );
      for (const one of result) expect(one.metric.endpoint).toMatch(/^\/[a-z-]+(\/[a-z-]+)*$/);
      expect(
        await prometheus.query('count(rampflow_service_request_duration_seconds_bucket{endpoint="/customer/create"})'),
      ).toHaveLength(1);
    });

    it("has the receiver's accepted deliveries, the worker's memory, and the rules' recorded SLAs", async () => {
      await eventually(
        'accepted deliveries',
        'sum(rampflow_webhook_requests_total{job="rampflow-webhooks", outcome="accepted"}) > 0',
        (series) => (series.length === 1 ? series : undefined),
      );
      const memory = await prometheus.query('process_resident_memory_bytes{job="rampflow-worker"}');
      expect(Number(memory[0]?.value[1])).toBeGreaterThan(10_000_000);
      await eventually('the SLA recording rules', 'rampflow:stage_sla_seconds{stage="AWAITING_ACCOUNTS"}', (series) =>
        series.length === 1 ? series : undefined,
      );
    });

    it("has the receiver's longest waiter per scanned stage, labelled by workflow type and stage only", async () => {
      const waiters = await eventually(
        'the stage age scan',
        'rampflow_stage_oldest_waiter_seconds{job="rampflow-webhooks"}',
        (series) => (series.length === SCANNED_STAGE_COUNT ? series : undefined),
      );
      for (const one of waiters)
        expect(Object.keys(one.metric).sort()).toEqual(['__name__', 'instance', 'job', 'stage', 'workflow_type']);
      expect(await prometheus.query('rampflow:stage_oldest_waiter_seconds')).toHaveLength(SCANNED_STAGE_COUNT);
    });

    it("serves the SDK's latency histograms in seconds, under the names the dashboard and rules use", async () => {
      const body = (await (await fetch(`${prometheus.url}/api/v1/label/__name__/values`)).json()) as { data: string[] };
      const names = new Set(body.data);
      for (const name of [
        'temporal_workflow_task_schedule_to_start_latency',
        'temporal_workflow_task_execution_latency',
        'temporal_activity_execution_latency',
        'temporal_sticky_cache_size',
        'temporal_worker_task_slots_available',
      ]) {
        const series = SDK_METRICS[name as keyof typeof SDK_METRICS] === 'histogram' ? `${name}_bucket` : name;
        expect(names.has(series), series).toBe(true);
      }
      // Seconds: a journey's workflow tasks each take well under a second, so the p99 is below 1 (in milliseconds it would be above).
      const [p99] = await prometheus.query(
        `histogram_quantile(0.99, sum by (le) (temporal_workflow_task_execution_latency_bucket{task_queue="${h.taskQueue}"}))`,
      );
      expect(Number(p99!.value[1])).toBeLessThan(1);
    });

    it('returns data for every query of the Grafana dashboard, after a reconciliation too (but the named few)', async () => {
      const reconciled = await h.reconcile();
      expect(reconciled).toBeDefined();
      await until(
        "the failing endpoint's deliveries to park",
        async () =>
          (await prometheus.query('rampflow_partner_event_deliveries_parked_total')).length > 0 ? true : undefined,
        60_000,
      );
      const targets = dashboardExpressions();
      const excused = (target: { panel: string; expr: string }) =>
        NO_DATA_IN_A_RUN.find(
          (entry) => entry.panel === target.panel && metricNamesIn(target.expr).includes(entry.metric),
        );
      for (const entry of NO_DATA_IN_A_RUN)
        expect(
          targets.some((target) => excused(target) === entry),
          `${entry.panel}: ${entry.metric} is on the dashboard`,
        ).toBe(true);
      // Grafana's intervals as a short window: the scrapes are a second apart, the run a minute or two long.
      const withoutData = async () => {
        const empty: string[] = [];
        for (const target of targets.filter((one) => !excused(one))) {
          if ((await prometheus.query(withGrafanaVariables(target.expr, '1m'))).length === 0)
            empty.push(`${target.panel} (${target.refId}): ${target.expr}`);
        }
        return empty;
      };
      const empty = await until(
        'every dashboard query to return data',
        async () => ((await withoutData()).length === 0 ? [] : undefined),
        30_000,
      ).catch(() => withoutData());
      expect(empty).toEqual([]);
      expect(accepting.accepted.length).toBeGreaterThan(0);
    }, 180_000);
  },
);
