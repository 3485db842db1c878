/**
 * The codec server process (`rampflow codec-server`): RAMPFLOW_PAYLOAD_KEYS and the CODEC_SERVER_*
 * variables from the environment, one log line per request, a clean stop on SIGINT/SIGTERM.
 */
import { CodecServerEnvSchema, parseEnv, PayloadEnvSchema, WorkerEnvSchema } from '../config/env';
import { createLogger } from '../config/logger';
import { buildCodecServer } from './codec-server';
import { EncryptionCodec } from './encryption-codec';

export async function runCodecServer(
  options: { host?: string } = {},
  env: NodeJS.ProcessEnv = process.env,
): Promise<void> {
  const config = parseEnv(
    CodecServerEnvSchema.extend(PayloadEnvSchema.shape).extend(WorkerEnvSchema.pick({ LOG_LEVEL: true }).shape),
    env,
  );
  const logger = createLogger('rampflow-codec-server', config.LOG_LEVEL);
  const codec = new EncryptionCodec(config.RAMPFLOW_PAYLOAD_KEYS);
  const app = await buildCodecServer({
    codec,
    token: config.CODEC_SERVER_TOKEN,
    corsOrigins: config.CODEC_SERVER_CORS_ORIGINS,
    logger,
  });
  try {
    await app.listen({ port: config.CODEC_SERVER_PORT, host: options.host ?? '0.0.0.0' });
    logger.info(
      {
        port: config.CODEC_SERVER_PORT,
        corsOrigins: config.CODEC_SERVER_CORS_ORIGINS,
        encryptsWith: codec.currentKeyId,
        keys: config.RAMPFLOW_PAYLOAD_KEYS.map(({ id }) => id),
      },
      'codec server listening',
    );
    await new Promise<void>((resolve) => {
      process.once('SIGINT', () => resolve());
      process.once('SIGTERM', () => resolve());
    });
  } finally {
    await app.close();
  }
  logger.info('codec server stopped');
}
