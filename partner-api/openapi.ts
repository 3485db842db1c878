/**
 * The partner API's OpenAPI 3.1 document, generated from the same zod schemas the server validates
 * with (served at GET /openapi.json).
 */
import type { z } from 'zod';
import { type JsonSchema, jsonSchemaOf } from '../client/contract';
import {
  CancelResultSchema,
  CloseResultSchema,
  EndRequestSchema,
  JourneyInputSchema,
  JourneyStateSchema,
  RetryRequestSchema,
  RetryResultSchema,
} from '../workflows/schemas';
import {
  DepositPageQuerySchema,
  DepositPageSchema,
  EndedJourneySchema,
  ErrorSchema,
  EventPageQuerySchema,
  EventPageSchema,
  ParkedDeliveriesSchema,
  ResendRequestSchema,
  ResendResultSchema,
  SignupAnswerSchema,
  SignupWithKycLinkSchema,
  TimelineQuerySchema,
  TimelineSchema,
} from './schemas';

/** A component schema; OpenAPI 3.1's own dialect is JSON Schema 2020-12, so only `$schema` goes. */
function component(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const { $schema: _dialect, ...rest } = jsonSchemaOf(schema, io);
  return rest;
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (name: string) => ({ content: { 'application/json': { schema: ref(name) } } });
const error = (description: string) => ({ description, ...json('Error') });

const COMMON_ERRORS = {
  '401': error('no bearer token, or the wrong one'),
  '503': error('Temporal cannot be reached or did not answer in time; try again'),
};

const externalIdParameter = {
  name: 'externalId',
  in: 'path',
  required: true,
  description: "the partner's own user id",
  schema: component(JourneyInputSchema.shape.customer.shape.externalId, 'input'),
};

function operatorAction(summary: string, request: string, result: string) {
  return {
    post: {
      summary,
      parameters: [externalIdParameter],
      requestBody: { required: false, ...json(request) },
      responses: {
        '200': { description: 'done', ...json(result) },
        '400': error('the request names bad fields'),
        '404': error('no journey for this externalId'),
        '409': error('the journey refused it (for example it is not parked in NEEDS_ATTENTION), with the reason'),
        ...COMMON_ERRORS,
      },
    },
  };
}

const EVENT_STORE_UNAVAILABLE = error('the partner event store cannot be reached; try again');

function queryParameters(schema: z.ZodObject) {
  const properties = component(schema, 'input').properties as Record<string, JsonSchema>;
  return Object.entries(properties).map(([name, property]) => ({
    name,
    in: 'query',
    required: false,
    schema: property,
  }));
}

export function buildOpenApiDocument() {
  return {
    openapi: '3.1.0',
    info: {
      title: 'rampflow partner API',
      version: '1',
      description:
        'Start and follow customer journeys, and read their partner events by cursor, from a partner backend in any language. Every request needs `Authorization: Bearer <PARTNER_API_TOKEN>`. The same contract, for starting journeys directly on Temporal, is contract/rampflow.contract.json.',
    },
    security: [{ bearerToken: [] }],
    paths: {
      '/journeys': {
        post: {
          summary:
            "start the customer's journey on signup and answer its stage and KYC link in the same round trip; idempotent on customer.externalId (a repeated signup returns the same journey)",
          description:
            "Waits at most PARTNER_API_SIGNUP_WAIT_SECONDS (default 5) for the service to give the customer's KYC link. A repeated signup of a running journey answers at once when the journey knows the link.",
          requestBody: { required: true, ...json('JourneyRequest') },
          responses: {
            '201': {
              description: 'the journey runs (started now, or already running) and the KYC link came back',
              ...json('SignupWithKycLink'),
            },
            '202': {
              description:
                'the journey runs (started now, or already running or ended for this externalId), without the KYC link: not known within the wait (or the journey has ended); read it from stateUrl',
              ...json('JourneyReference'),
            },
            '400': error('the request names bad fields'),
            ...COMMON_ERRORS,
          },
        },
      },
      '/journeys/{externalId}': {
        get: {
          summary:
            "the journey's whole state, or how it ended when it failed, was terminated, timed out or was cancelled",
          parameters: [externalIdParameter],
          responses: {
            '200': {
              description: 'the state; for a journey that ended without completing, its status and failure (decoded)',
              content: { 'application/json': { schema: { oneOf: [ref('JourneyState'), ref('EndedJourney')] } } },
            },
            '400': error('the externalId is not valid'),
            '404': error('no journey for this externalId'),
            ...COMMON_ERRORS,
          },
        },
      },
      '/journeys/{externalId}/deposits': {
        get: {
          summary: "the customer's deposits, newest first, a page at a time",
          parameters: [externalIdParameter, ...queryParameters(DepositPageQuerySchema)],
          responses: {
            '200': { description: 'one page', ...json('DepositPage') },
            '400': error('a bad parameter'),
            ...COMMON_ERRORS,
          },
        },
      },
      '/journeys/{externalId}/timeline': {
        get: {
          summary:
            "the customer's partner events in sequence order, a page at a time; read from the event store, so an unknown customer, or one whose first event is still on its way, has an empty timeline (not 404)",
          parameters: [externalIdParameter, ...queryParameters(TimelineQuerySchema)],
          responses: {
            '200': { description: 'one page', ...json('Timeline') },
            '400': error('a bad parameter'),
            '401': COMMON_ERRORS['401'],
            '503': EVENT_STORE_UNAVAILABLE,
          },
        },
      },
      '/events': {
        get: {
          summary:
            'partner events of every customer and payout, in the order rampflow stored them, after a cursor. Keep the last `next` you processed and ask with it: you miss nothing and see nothing twice, across restarts of either side',
          parameters: queryParameters(EventPageQuerySchema),
          responses: {
            '200': {
              description: 'one page (empty, with `next` unchanged, when nothing new came)',
              ...json('EventPage'),
            },
            '400': error('a bad parameter, or a cursor this API did not give out'),
            '401': COMMON_ERRORS['401'],
            '503': EVENT_STORE_UNAVAILABLE,
          },
        },
      },
      '/partner-events/parked': {
        get: {
          summary:
            "streams whose deliveries to an endpoint parked after their retry period (three days by default), with the last attempt's reason",
          responses: { '200': { description: 'the parked streams', ...json('ParkedDeliveries') }, ...COMMON_ERRORS },
        },
      },
      '/partner-events/resend': {
        post: {
          summary: "resume a stream's parked deliveries, in order, each endpoint with a fresh retry period",
          requestBody: { required: true, ...json('ResendRequest') },
          responses: {
            '200': { description: 'resumed', ...json('ResendResult') },
            '400': error('the request names bad fields'),
            '404': error('no deliveries of this stream are under way'),
            '409': error("none of the stream's deliveries is parked"),
            ...COMMON_ERRORS,
          },
        },
      },
      '/journeys/{externalId}/retry': operatorAction(
        'resume a journey parked in NEEDS_ATTENTION, optionally with corrected input',
        'RetryRequest',
        'RetryResult',
      ),
      '/journeys/{externalId}/cancel': operatorAction(
        'end a journey parked in NEEDS_ATTENTION',
        'EndRequest',
        'CancelResult',
      ),
      '/journeys/{externalId}/close': operatorAction(
        'end the customer relationship at any stage',
        'EndRequest',
        'CloseResult',
      ),
    },
    components: {
      securitySchemes: { bearerToken: { type: 'http', scheme: 'bearer', description: 'PARTNER_API_TOKEN' } },
      schemas: {
        JourneyRequest: component(JourneyInputSchema, 'input'),
        JourneyReference: component(SignupAnswerSchema, 'output'),
        SignupWithKycLink: component(SignupWithKycLinkSchema, 'output'),
        JourneyState: component(JourneyStateSchema, 'output'),
        EndedJourney: component(EndedJourneySchema, 'output'),
        DepositPage: component(DepositPageSchema, 'output'),
        EventPage: component(EventPageSchema, 'output'),
        Timeline: component(TimelineSchema, 'output'),
        ParkedDeliveries: component(ParkedDeliveriesSchema, 'output'),
        ResendRequest: component(ResendRequestSchema, 'input'),
        ResendResult: component(ResendResultSchema, 'output'),
        RetryRequest: component(RetryRequestSchema, 'input'),
        RetryResult: component(RetryResultSchema, 'output'),
        EndRequest: component(EndRequestSchema, 'input'),
        CancelResult: component(CancelResultSchema, 'output'),
        CloseResult: component(CloseResultSchema, 'output'),
        Error: component(ErrorSchema, 'output'),
      },
    },
  };
}
