/** The sandbox: a faithful local emulator of the partner ramp service. */
export { createSandbox, type Sandbox, type SandboxClock } from './create-sandbox';
export type { SandboxOptions, PartnerKeyPair } from './options';
export { DEFAULT_AUTOPILOT_DELAYS, uniformAutopilotDelays, type AutopilotDelays } from './autopilot';
export { SANDBOX_VARIANTS, variantOptions, type SandboxVariants } from './variants';
