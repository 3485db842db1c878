/** The real service's setup endpoints: health, the partner's own record, the registered callback URL. */
import {
  CallbackUrlSchema,
  HealthSchema,
  PartnerInfoSchema,
  type CallbackUrl,
  type Health,
  type PartnerInfo,
} from '../schemas';
import { EndpointModule } from './endpoint';

export class SetupModule extends EndpointModule {
  /** GET /health. */
  async health(): Promise<Health> {
    return this.getData('/health', [], HealthSchema);
  }

  /** GET /basic-info: the partner's own record. */
  async basicInfo(): Promise<PartnerInfo> {
    return this.getData('/basic-info', [], PartnerInfoSchema);
  }

  /** GET /callback-url: the URL events are delivered to (POST is `client.callbackUrl.set`). */
  async callbackUrl(): Promise<CallbackUrl> {
    return this.getData('/callback-url', [], CallbackUrlSchema);
  }
}
