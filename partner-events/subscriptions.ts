/** Which events an endpoint takes: the types it lists, or every type when it lists none. */
import type { PartnerEventType } from './catalogue';
import type { PartnerEndpoint } from './endpoint-types';

export const subscribes = (endpoint: Pick<PartnerEndpoint, 'events'>, type: PartnerEventType): boolean =>
  endpoint.events === undefined || endpoint.events.includes(type);
