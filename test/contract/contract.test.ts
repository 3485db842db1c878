/**
 * The published contract (contract/rampflow.contract.json): the repository's copy is what the code
 * generates, and its JSON Schemas, read by a JSON Schema validator as a partner's tooling would, accept
 * and refuse what the workflows accept and refuse.
 */
import { readFileSync } from 'node:fs';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { buildContract, contractText } from '../../client/contract';
import { CONTRACT_PATH } from '../../cli/contract';
import { depositWorkflowId, journeyWorkflowId } from '../../workflows/common/messages';
import { JourneyInputSchema, JourneyStateSchema } from '../../workflows/schemas';

const contract = buildContract();
const ajv = addFormats(new Ajv2020({ allErrors: true, strict: true }));
// zod writes `format: base64`, which is not one of JSON Schema's own formats (validators ignore or define it).
ajv.addFormat('base64', /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/);
const validator = (schema: unknown) => ajv.compile(schema as object);
const customer = { externalId: 'user-42', realName: 'Ada Lovelace', email: 'ada@example.com' };

describe('the published contract', () => {
  it('is what `rampflow contract` generates from the schemas (run `npx rampflow contract` when this fails)', () => {
    expect(readFileSync(CONTRACT_PATH, 'utf8')).toBe(contractText());
  });

  it('names the workflow types, ID formats, task queue and ID policies a caller must use', () => {
    const journey = contract.workflows.customerJourney;
    expect(journey.workflowType).toBe('customerJourney');
    expect(journey.workflowId.format).toBe('customer/<customer.externalId>');
    expect(new RegExp(journey.workflowId.pattern).test(journeyWorkflowId('user-42'))).toBe(true);
    expect(new RegExp(journey.workflowId.pattern).test(journeyWorkflowId('has space'))).toBe(false);
    expect(new RegExp(contract.workflows.depositLifecycle.workflowId.pattern).test(depositWorkflowId('d-1'))).toBe(
      true,
    );
    expect(journey.startWith.workflowIdConflictPolicy).toBe('USE_EXISTING');
    expect(contract.taskQueue.default).toBe('rampflow');
  });

  it('has a journey input schema that accepts and refuses what the workflow does', () => {
    const accepts = validator(contract.workflows.customerJourney.input);
    const cases: unknown[] = [
      { customer },
      { customer: { realName: 'X' } },
      { customer: { ...customer, externalId: 42 } },
      { customer, timings: { kycDeadlineSeconds: -1 } },
      { customer, offramp: { currency: 'USDT', network: 'ETH', bankAccount: { accountNo: '1' } } },
      { customer, onramp: { currency: 'aud', cryptoAddress: { address: '0x1' } } },
    ];
    for (const input of cases)
      expect(accepts(input), JSON.stringify(input)).toBe(JourneyInputSchema.safeParse(input).success);
    expect(accepts({ customer })).toBe(true);
    expect(accepts({ customer: { realName: 'X' } })).toBe(false);
  });

  it("has query answer schemas that the workflows' answers satisfy", () => {
    const state = JourneyStateSchema.parse({
      externalId: 'user-42',
      stage: 'AWAITING_KYC',
      waitingFor: 'the customer to pass KYC',
      customer: { id: 'c-1', status: 'PENDING', kycLink: 'https://kyc.example/1' },
      onramp: { currency: 'AUD', virtualAccount: { id: 'va-1', status: 'PENDING' } },
      deposits: {
        byStage: { RECEIVED: 1, COMPLETED: 3 },
        completedTotals: { AUD: '300.00' },
        reversedTotals: { AUD: '50.00' },
        reversedDepositIds: ['d-0'],
        open: [{ depositId: 'd-1', kind: 'ONRAMP', stage: 'RECEIVED', amount: '100.00', currency: 'AUD' }],
        openNotShown: 0,
        recent: [],
      },
    });
    const answers = validator(contract.workflows.customerJourney.queries.journeyState.result);
    expect(answers(state)).toBe(true);
    expect(answers({ ...state, stage: 'SOMEWHERE' })).toBe(false);
  });

  it('compiles every schema it publishes', () => {
    const schemas: unknown[] = [];
    for (const workflow of Object.values(contract.workflows)) {
      schemas.push(workflow.input, workflow.result, workflow.invalidStartInput.details);
      for (const part of [workflow.queries, workflow.updates, workflow.signals]) {
        for (const message of Object.values(part) as Record<string, unknown>[])
          schemas.push(...['input', 'result'].filter((key) => key in message).map((key) => message[key]));
      }
    }
    expect(schemas.length).toBeGreaterThan(20);
    for (const schema of schemas) expect(() => validator(schema)).not.toThrow();
  });
});
