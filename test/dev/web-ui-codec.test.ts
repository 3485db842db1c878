/**
 * The Temporal Web UI of `rampflow dev` (npm start), in a real browser: the demo journey's page shows
 * the customer's input decrypted through the codec server; a UI that cannot present the codec
 * server's token shows no plaintext.
 */
// The in-process stack's worker logs through the runtime: kept quiet like the temporal project's.
import '../support/quiet-temporal-runtime';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../dev/ports';
import { runDemo, workflowUiUrl } from '../../dev/demo';
import { startStack, type Stack } from '../../dev/stack';
import { journeyListQuery } from '../../client/visibility';
import { chromiumMissing, launchChromium } from '../support/chromium';

if (chromiumMissing) console.warn(`[web-ui-codec] skipped: ${chromiumMissing}`);

describe.skipIf(chromiumMissing !== undefined)('the Web UI with the codec server', () => {
  let stack: Stack;
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  let journeyUrl: string;
  const stopDemo = new AbortController();
  let demo: Promise<unknown>;

  beforeAll(async () => {
    stack = await startStack({
      port: await freePort(),
      uiPort: await freePort(),
      sandboxPort: await freePort(),
      webhookPort: await freePort(),
      partnerApiPort: await freePort(),
      codecPort: await freePort(),
      dbFile: join(mkdtempSync(join(tmpdir(), 'rampflow-ui-')), 'temporal.db'),
      progress: () => {},
    });
    demo = runDemo(stack, { progress: () => {}, timeoutMs: 120_000, signal: stopDemo.signal }).catch(
      (error: unknown) => error,
    );
    const deadline = Date.now() + 60_000;
    let workflowId: string | undefined;
    while (!workflowId) {
      for await (const execution of stack.rampflow.temporal.workflow.list({ query: journeyListQuery({}).query }))
        workflowId ??= execution.workflowId;
      if (Date.now() > deadline) throw new Error('the demo journey did not start');
      await new Promise((wake) => setTimeout(wake, 500));
    }
    journeyUrl = workflowUiUrl(stack.temporal.uiUrl!, stack.temporal.namespace, workflowId);
    browser = await launchChromium();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    stopDemo.abort();
    await demo;
    await stack?.stop();
  }, 60_000);

  it("shows the demo customer's input decrypted", async () => {
    const page = await browser.context.newPage();
    await page.goto(journeyUrl);
    await page.getByText('ada@example.com').first().waitFor({ timeout: 60_000 });
    await page.screenshot({ path: join(tmpdir(), 'rampflow-ui-decoded.png'), fullPage: true });
    expect(await page.content()).toContain('Ada Lovelace');
    await page.close();
  }, 90_000);

  it('shows no plaintext when its codec requests carry no token', async () => {
    const page = await browser.context.newPage();
    const refused: number[] = [];
    // The same UI, but its calls to the codec server lose the token segment: /<token>/decode becomes /decode.
    await page.route(/\/(encode|decode)$/, (route) => {
      const url = new URL(route.request().url());
      url.pathname = `/${url.pathname.split('/').pop()!}`;
      return route.continue({ url: url.toString() });
    });
    page.on('response', (response) => {
      if (/\/decode$/.test(response.url())) refused.push(response.status());
    });
    await page.goto(journeyUrl);
    // The UI says so, and shows the input as it is stored: sealed, with its key id.
    await page
      .getByText('Codec Server could not connect')
      .filter({ visible: true })
      .first()
      .waitFor({ timeout: 60_000 });
    await page.getByText(Buffer.from('binary/encrypted').toString('base64')).first().waitFor({ timeout: 30_000 });
    await page.screenshot({ path: join(tmpdir(), 'rampflow-ui-encrypted.png'), fullPage: true });
    const content = await page.content();
    expect(content).not.toContain('ada@example.com');
    expect(content).not.toContain('Ada Lovelace');
    expect(refused.length).toBeGreaterThan(0);
    expect(refused.every((status) => status === 401)).toBe(true);
    await page.close();
  }, 90_000);
});
