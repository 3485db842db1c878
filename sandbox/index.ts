/** The sandbox: a faithful local emulator of the partner ramp service. */
export { createSandbox, type Sandbox } from './create-sandbox';
export type { SandboxOptions, PartnerKeyPair } from './options';
export { uniformAutopilotDelays } from './autopilot';
export { SANDBOX_VARIANTS, variantOptions } from './variants';
